"""The machine a name or a file names: a profile of machines/ (machine.py)
or a flagcheck-calibrate result (calibmachine.py)."""

from ..inputs import calibfile
from ..inputs.calibfile import CalibrationError
from . import profile
from .calibmachine import CalibratedMachine
from .machine import Machine
from .profile import MachineError


def load(name_or_path, machines_dir=None):
    """The Machine of a profile name (machines_dir/NAME.toml), a profile
    file, or a flagcheck-calibrate result (calibration.json); raises
    MachineError (a ValueError) with one line."""
    path = profile.find(name_or_path, machines_dir)
    if path.endswith(".json"):
        try:
            return CalibratedMachine(calibfile.load(path), path)
        except CalibrationError as e:
            raise MachineError(str(e))
    return Machine(profile.read(path), path)
