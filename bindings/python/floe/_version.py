# The package's version: libfloe's (include/floe.h's FLOE_VERSION_STRING),
# which setup.py checks when it builds the package.
__version__ = "0.1.0"
