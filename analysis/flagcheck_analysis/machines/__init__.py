"""The machines: a profile (machines/*.toml, or a calibration as one), the
physics settings it carries, and this host's CPUs as /sys lists them."""
