"""The C header's enumerations as enum.IntEnum, numbered as gmlab.h numbers them
(tests check them against the wrapper's constants, which the wrapper checks
against the header at compile time)."""

import enum


class Status(enum.IntEnum):
    """gm_status: 0 for success, explicit negative codes, never renumbered."""

    OK = 0
    INVALID_ARGUMENT = -1
    NO_DEVICE = -2
    NOT_SUPPORTED = -3
    OUT_OF_MEMORY = -4
    CUDA = -5
    VERIFICATION_FAILED = -6
    UNKNOWN_EXPERIMENT = -7
    INTERNAL = -8


class Transpose(enum.IntEnum):
    """gm_transpose_variant: the kernel Context.transpose uses."""

    NAIVE = 0  #: reads coalesced, writes strided
    SHARED = 1  #: 32x32 shared-memory tile (bank conflicts on the way out)
    SHARED_PADDED = 2  #: the tile padded to 33 columns: conflict-free
    WIDE = 3  #: 64x64 swizzled tile, 16-byte accesses (4-byte elements, sides multiples of 4)
    AUTO = 4  #: the fastest that fits the shape


class Matmul(enum.IntEnum):
    """gm_matmul_variant: the guide's three C = AB kernels."""

    SIMPLE = 0  #: A and B from global memory
    COALESCED_A = 1  #: a tile of A in shared memory
    SHARED_AB = 2  #: tiles of A and B in shared memory


class AccessProperty(enum.IntEnum):
    """gm_access_property: how accesses in an L2 access policy window are cached."""

    NORMAL = 0
    STREAMING = 1
    PERSISTING = 2


#: The measurement settings of a context by name (gm_setting), in the header's order.
SETTINGS = ("warmup", "min_repetitions", "max_repetitions", "min_time_ms", "flush_l2", "memory_fraction", "counters")
