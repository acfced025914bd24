"""The observation: its layout, fingerprint and encoder (``observation``), which runs the
core's C++ encoder."""
