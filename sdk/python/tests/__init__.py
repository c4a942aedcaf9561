"""The SDK's tests: run from sdk/python with
python3 -m unittest discover -s tests -t . (the package is put on the path
here, so no install is needed)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
