"""Steps that read content: classification and PII (arriving with the guards issue)."""
