"""The observation: its layout, fingerprint and encoder (``observation``) and the field-by-field
Python computation the C++ encoder is held to (``observation_reference``)."""
