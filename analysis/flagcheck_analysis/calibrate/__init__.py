"""flagcheck-calibrate: this machine's cache-line costs, measured by the C
program of the same name, and calibration.json."""
