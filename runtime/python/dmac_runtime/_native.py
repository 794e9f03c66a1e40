"""The C library (runtime/cuda/dmac_runtime.h) through ctypes.

ctypes rather than a torch C++ extension: the library's API is a dozen plain C functions taking
pointers and integers, so ctypes needs no compiler at import time and no build against the
installed torch's headers and ABI (an extension must be rebuilt for every torch version, and its
JIT build takes about a minute on the GPU machine). Tensors and streams cross as integers
(tensor.data_ptr(), stream.cuda_stream). The calls only enqueue GPU work (trigger, wait, reset),
so what ctypes adds is host time while the GPUs run.

Which library: $DMAC_RUNTIME_LIB, else runtime/cuda/build/libdmac_runtime.so of this checkout
(`make -C runtime/cuda lib`). CI loads the host-only build (`make -C runtime/cuda host`:
libdmac_host.so), which has the parser and the binding checks but no GPU function.
"""

import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LIBRARY = os.path.normpath(os.path.join(_HERE, "..", "..", "cuda", "build", "libdmac_runtime.so"))

# dmac_status codes (dmac_runtime.h), by value.
STATUS = (
    "DMAC_OK",
    "DMAC_ERR_ARGUMENT",
    "DMAC_ERR_IO",
    "DMAC_ERR_PROGRAM",
    "DMAC_ERR_UNKNOWN_BUFFER",
    "DMAC_ERR_RANK",
    "DMAC_ERR_SIZE",
    "DMAC_ERR_UNBOUND",
    "DMAC_ERR_MEMORY",
    "DMAC_ERR_STATE",
    "DMAC_ERR_CUDA",
    "DMAC_ERR_TIMEOUT",
    "DMAC_ERR_NO_GPU",
)

_P = ctypes.c_void_p
_STREAMS = ctypes.POINTER(ctypes.c_void_p)
_INTS = ctypes.POINTER(ctypes.c_int)

# name: (argument types); every function returns a dmac_status unless listed in _RESTYPE.
_HOST = {
    "dmac_last_error": (),
    "dmac_load": (ctypes.c_char_p, ctypes.POINTER(_P)),
    "dmac_gpus": (_P,),
    "dmac_buffer_count": (_P,),
    "dmac_buffer": (_P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), _INTS, ctypes.POINTER(ctypes.c_uint64)),
    "dmac_has_trigger": (_P,),
    "dmac_program_sha256": (_P,),
    "dmac_bind": (_P, ctypes.c_char_p, ctypes.c_int, _P, ctypes.c_uint64),
    "dmac_set_device": (_P, ctypes.c_int, ctypes.c_int),
    "dmac_check_bindings": (_P,),
    "dmac_destroy": (_P,),
}
_GPU = {
    "dmac_prepare": (_P,),
    "dmac_enqueue": (_P,),
    "dmac_trigger": (_P, _STREAMS, _INTS, ctypes.c_int),
    "dmac_wait": (_P, _STREAMS, _INTS, ctypes.c_int),
    "dmac_wait_host": (_P, ctypes.c_double),
    "dmac_reset": (_P,),
}
_RESTYPE = {
    "dmac_last_error": ctypes.c_char_p,
    "dmac_gpus": ctypes.c_int,
    "dmac_buffer_count": ctypes.c_int,
    "dmac_has_trigger": ctypes.c_int,
    "dmac_program_sha256": ctypes.c_char_p,
    "dmac_destroy": None,
}


class DmacError(RuntimeError):
    """A dmac_runtime error: `status` is the dmac_status name (DMAC_ERR_SIZE, ...)."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status


class Native:
    """The loaded library: one attribute per C function, each checked for its status."""

    def __init__(self, path=None):
        path = path or os.environ.get("DMAC_RUNTIME_LIB") or DEFAULT_LIBRARY
        if not os.path.exists(path):
            raise DmacError("DMAC_ERR_IO", "no library at %s: build it with `make -C runtime/cuda lib`" % path)
        self.path = path
        self.lib = ctypes.CDLL(path)
        for table in (_HOST, _GPU):
            for name, args in table.items():
                fn = getattr(self.lib, name, None)
                if fn is None:
                    continue  # the host-only build: calling it raises DMAC_ERR_NO_GPU
                fn.argtypes = args
                fn.restype = _RESTYPE.get(name, ctypes.c_int)

    def call(self, name, *args):
        """Calls NAME; raises DmacError unless it returns DMAC_OK."""
        fn = getattr(self.lib, name, None)
        if fn is None:
            raise DmacError("DMAC_ERR_NO_GPU", "%s is not in %s (the host-only build?)" % (name, self.path))
        status = fn(*args)
        if status != 0:
            code = STATUS[status] if 0 <= status < len(STATUS) else "status %d" % status
            raise DmacError(code, self.lib.dmac_last_error().decode())

    def value(self, name, *args):
        """Calls a function that returns a value, not a status."""
        return getattr(self.lib, name)(*args)
