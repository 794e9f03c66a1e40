"""Run a compiled dmac CUDA command program on PyTorch tensors (docs/runtime.md, "Use it from your code").

    prog = dmac_runtime.Program("out/program.txt")   # dmac compile ... --target <CUDA target> -o out
    for rank, t in enumerate(outputs):
        prog.bind("out", rank, t)                      # the program's buffer names, one tensor each
    prog.prepare()
    prog.run(streams)        # or prog.trigger(streams) ... prog.wait(streams); prog.reset()

One process drives every GPU of the program (rank r on cuda:r unless `devices` says otherwise).
The C library does the work (runtime/cuda/dmac_runtime.h); this module turns tensors and streams
into pointers and checks what only Python can see (a tensor must be contiguous).
"""

from ._native import DmacError, Native

HOST = -1  # the place of a buffer in pinned host memory (DMAC_HOST)

__all__ = ["DmacError", "HOST", "Program", "tensor_memory", "stream_handles"]


def tensor_memory(tensor):
    """(address, bytes) of a tensor's storage as the program will use it: it must be contiguous,
    since the program copies byte ranges of one block of memory."""
    if not tensor.is_contiguous():
        raise DmacError("DMAC_ERR_ARGUMENT", "the tensor must be contiguous (call .contiguous() first)")
    return tensor.data_ptr(), tensor.numel() * tensor.element_size()


def stream_handles(streams):
    """(handles, devices) of a torch.cuda.Stream or a list of them. Devices are passed along
    because every default stream's handle is 0 whatever its GPU."""
    if not isinstance(streams, (list, tuple)):
        streams = [streams]
    if not streams:
        raise DmacError("DMAC_ERR_ARGUMENT", "give at least one stream")
    handles, devices = [], []
    for s in streams:
        if not hasattr(s, "cuda_stream") or not hasattr(s, "device"):
            raise DmacError("DMAC_ERR_ARGUMENT", "not a torch.cuda.Stream: %r" % (s,))
        if s.device.index is None:
            raise DmacError("DMAC_ERR_ARGUMENT", "the stream's device has no index: %r" % (s,))
        handles.append(int(s.cuda_stream))
        devices.append(int(s.device.index))
    return handles, devices


class Program:
    """A loaded program, its bindings and, after prepare(), its streams on the GPUs."""

    def __init__(self, path, devices=None, library=None):
        import ctypes

        self._ctypes = ctypes
        self._n = Native(library)
        handle = ctypes.c_void_p()
        self._n.call("dmac_load", str(path).encode(), ctypes.byref(handle))
        self._h = handle
        self._keep = {}  # the bound tensors, alive as long as the program
        try:
            for rank, device in enumerate(devices or []):
                self._n.call("dmac_set_device", self._h, rank, int(device))
        except DmacError:
            self.close()
            raise

    @property
    def gpus(self):
        return self._n.value("dmac_gpus", self._h)

    @property
    def has_trigger(self):
        """True for a program compiled with --prelaunch: enqueued ahead, released by trigger()."""
        return bool(self._n.value("dmac_has_trigger", self._h))

    @property
    def sha256(self):
        return self._n.value("dmac_program_sha256", self._h).decode()

    @property
    def buffers(self):
        """[(name, place, bytes)]: place is a rank, or HOST."""
        c = self._ctypes
        out = []
        for i in range(self._n.value("dmac_buffer_count", self._h)):
            name, place, size = c.c_char_p(), c.c_int(), c.c_uint64()
            self._n.call("dmac_buffer", self._h, i, c.byref(name), c.byref(place), c.byref(size))
            out.append((name.value.decode(), place.value, size.value))
        return out

    def bind(self, name, place, tensor):
        """Buffer NAME of PLACE (a rank, or HOST) is TENSOR's memory: a contiguous tensor of exactly
        the buffer's size, on the rank's GPU (pinned, for HOST)."""
        ptr, size = tensor_memory(tensor)
        self._n.call("dmac_bind", self._h, name.encode(), int(place), self._ctypes.c_void_p(ptr), size)
        self._keep[(name, place)] = tensor

    def check_bindings(self):
        self._n.call("dmac_check_bindings", self._h)

    def prepare(self):
        """Checks the bindings against the GPUs, makes the program's streams and words."""
        self._n.call("dmac_prepare", self._h)

    def prelaunch(self):
        """Enqueues every command now, behind the trigger (a program compiled with --prelaunch)."""
        self._n.call("dmac_enqueue", self._h)

    def _streams(self, streams):
        handles, devices = stream_handles(streams)
        c = self._ctypes
        return (c.c_void_p * len(handles))(*handles), (c.c_int * len(devices))(*devices), len(handles)

    def trigger(self, streams):
        """Starts the run after the work already queued on STREAMS (one or a list)."""
        self._n.call("dmac_trigger", self._h, *self._streams(streams))

    def wait(self, streams):
        """STREAMS wait for the run's completion (GPU-side: the host does not block)."""
        self._n.call("dmac_wait", self._h, *self._streams(streams))

    def reset(self):
        """For the next run: ordered on the GPUs after this run and every wait(); never blocks."""
        self._n.call("dmac_reset", self._h)

    def run(self, streams):
        """trigger, wait and reset: one whole run, ordered on STREAMS."""
        self.trigger(streams)
        self.wait(streams)
        self.reset()

    def close(self):
        if self._h:
            self._n.value("dmac_destroy", self._h)
            self._h = None
            self._keep.clear()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
