"""Names and limits of the NB101 space (shared by every module of the package)."""

INPUT = "input"
OUTPUT = "output"
CONV3X3 = "conv3x3-bn-relu"
CONV1X1 = "conv1x1-bn-relu"
MAXPOOL3X3 = "maxpool3x3"
#: Interior ops in label order (0, 1, 2), the order the hash and the enumeration use.
OPS: tuple[str, ...] = (CONV3X3, CONV1X1, MAXPOOL3X3)
MAX_VERTICES = 7
MAX_EDGES = 9
