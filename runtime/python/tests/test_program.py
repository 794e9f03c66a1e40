"""What the Python package and the C library check without a GPU: the program parser, the binding
checks (size, rank, place, unknown and missing buffers) and the package's argument handling. Runs
against the host-only build of the library (`make -C runtime/cuda host`), named by
$DMAC_RUNTIME_LIB, on programs compiled by test/unit/runtime/runtime.test.ts into
$DMAC_TEST_PROGRAMS (all_gather: examples/all_gather_b2b.dmac for a 4-GPU h200, 4 KiB shards;
upload: examples/host_upload_pieces.dmac for h100). No torch: tensors and streams are stand-ins
with the few attributes the package reads.

    DMAC_RUNTIME_LIB=... DMAC_TEST_PROGRAMS=... python3 -m unittest discover -s runtime/python/tests
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dmac_runtime  # noqa: E402
from dmac_runtime import HOST, DmacError, Program, stream_handles  # noqa: E402

PROGRAMS = os.environ.get("DMAC_TEST_PROGRAMS", "")


class FakeTensor:
    """A tensor as the package sees one: an address, a size, contiguity."""

    def __init__(self, nbytes, ptr=0x7F0000000000, contiguous=True):
        self.nbytes, self.ptr, self.contiguous = nbytes, ptr, contiguous

    def data_ptr(self):
        return self.ptr

    def numel(self):
        return self.nbytes // 4

    def element_size(self):
        return 4

    def is_contiguous(self):
        return self.contiguous


class FakeDevice:
    def __init__(self, index):
        self.index = index


class FakeStream:
    def __init__(self, handle, device):
        self.cuda_stream, self.device = handle, FakeDevice(device)


def program_path(name):
    return os.path.join(PROGRAMS, name, "program.txt")


def edited(name, old, new):
    """A copy of a compiled program with one text edit, in a temporary file."""
    with open(program_path(name)) as f:
        text = f.read()
    assert old in text, old
    f = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
    f.write(text.replace(old, new, 1))
    f.close()
    return f.name


@unittest.skipUnless(PROGRAMS and os.environ.get("DMAC_RUNTIME_LIB"), "run by test/unit/runtime/runtime.test.ts")
class ProgramTest(unittest.TestCase):
    def setUp(self):
        self.ag = Program(program_path("all_gather"))

    def tearDown(self):
        self.ag.close()

    def assertFails(self, status, pattern, fn, *args):
        with self.assertRaises(DmacError) as e:
            fn(*args)
        self.assertEqual(e.exception.status, status)
        self.assertRegex(str(e.exception), pattern)

    def test_reads_the_program(self):
        self.assertEqual(self.ag.gpus, 4)
        self.assertTrue(self.ag.has_trigger)
        self.assertEqual(self.ag.buffers, [("buf", r, 16384) for r in range(4)])
        with open(os.path.join(PROGRAMS, "all_gather", "program.json")) as f:
            meta = json.load(f)
        self.assertEqual(self.ag.sha256, meta["programSha256"])
        up = Program(program_path("upload"))
        self.assertEqual(up.buffers, [("staging", HOST, 8192), ("dst", 0, 8192)])
        up.close()

    def test_binding_checks(self):
        self.assertFails("DMAC_ERR_SIZE", r"buffer buf of rank 1 is 16384 bytes .* 4096 bytes", self.ag.bind, "buf", 1, FakeTensor(4096))
        self.assertFails("DMAC_ERR_UNKNOWN_BUFFER", r"no buffer out \(it has: buf\)", self.ag.bind, "out", 0, FakeTensor(16384))
        self.assertFails("DMAC_ERR_RANK", r"rank 4 is out of range: the program has 4 GPUs", self.ag.bind, "buf", 4, FakeTensor(16384))
        self.assertFails("DMAC_ERR_RANK", r"buffer buf does not exist on host", self.ag.bind, "buf", HOST, FakeTensor(16384))
        self.assertFails("DMAC_ERR_ARGUMENT", r"contiguous", self.ag.bind, "buf", 0, FakeTensor(16384, contiguous=False))
        up = Program(program_path("upload"))
        self.assertFails("DMAC_ERR_RANK", r"buffer staging does not exist on rank 0 \(it is in host memory\)", up.bind, "staging", 0, FakeTensor(8192))
        up.bind("staging", HOST, FakeTensor(8192))
        up.close()

    def test_a_missing_binding_is_named(self):
        for r in range(3):
            self.ag.bind("buf", r, FakeTensor(16384, ptr=0x7F0000000000 + r * 65536))
        self.assertFails("DMAC_ERR_UNBOUND", r"buffer buf of rank 3 is not bound", self.ag.check_bindings)
        self.ag.bind("buf", 3, FakeTensor(16384))
        self.ag.check_bindings()

    def test_device_map(self):
        self.assertFails("DMAC_ERR_RANK", r"rank 4 is out of range", Program, program_path("all_gather"), [0, 1, 2, 3, 4])
        Program(program_path("all_gather"), [3, 2, 1, 0]).close()

    def test_gpu_functions_need_the_gpu_build(self):
        self.assertFails("DMAC_ERR_NO_GPU", r"dmac_prepare is not in .*libdmac_host", self.ag.prepare)

    def test_malformed_programs(self):
        cases = [
            ("dmac-cuda-program 1", "dmac-cuda-program 2", r"not a dmac CUDA program"),
            ("\nend\n", "\n", r"ends without 'end'"),
            ("buffer 0 3 16384 buf", "buffer 0 x 16384 buf", r"line 7: a place is a GPU rank or 'host', not 'x'"),
            ("buffer 0 3 16384 buf", "buffer 0 4 16384 buf", r"buffer buf is on rank 4 of 4 GPUs"),
            ("buffer 0 3 16384 buf", "buffer 0 3 8192 buf", r"a copy of stream 0 on GPU 2: 4096 bytes at offset 8192 run past the end of buffer buf \(8192 bytes\)"),
            ("buffer 0 3 16384 buf", "buffer 0 2 16384 buf", r"line 7: buffer 0 is declared twice on one place"),
            ("wait 0 geq 1", "wait 9 geq 1", r"a wait names word 9 of 5"),
            ("wait 0 geq 1", "wait 0 gt 1", r"expected WORD geq\|eq VALUE"),
            ("write 1 1", "write 1 1 7", r"unexpected '7'"),
            ("words 5", "wurds 5", r"line 3: unknown record 'wurds'"),
            ("batch 3\nitem", "batch 3\nitme", r"expected 'item'"),
            ("expect 0 0 4096 4096", "expect 0 0 4096 4097", r"two expect lines overlap in buffer 0"),
        ]
        for old, new, pattern in cases:
            with self.subTest(new=new):
                path = edited("all_gather", old, new)
                self.assertFails("DMAC_ERR_PROGRAM", pattern, Program, path)
                os.unlink(path)
        self.assertFails("DMAC_ERR_IO", r"cannot read /nonexistent/program.txt", Program, "/nonexistent/program.txt")

    def test_stream_handles(self):
        self.assertEqual(stream_handles(FakeStream(0, 2)), ([0], [2]))
        self.assertEqual(stream_handles([FakeStream(0, 0), FakeStream(0xABC, 1)]), ([0, 0xABC], [0, 1]))
        with self.assertRaises(DmacError):
            stream_handles([])
        with self.assertRaises(DmacError):
            stream_handles(["not a stream"])
        with self.assertRaises(DmacError):
            stream_handles(FakeStream(0, None))

    def test_a_missing_library_is_explained(self):
        with self.assertRaises(DmacError) as e:
            dmac_runtime.Program(program_path("all_gather"), library="/nonexistent/lib.so")
        self.assertRegex(str(e.exception), r"make -C runtime/cuda lib")


if __name__ == "__main__":
    unittest.main()
