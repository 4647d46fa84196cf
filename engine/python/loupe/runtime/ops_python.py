"""tinygrad.runtime.ops_python: tinygrad's interpreted device. Loupe's counterpart is its kernel interpreter
(the app's kernel stepper, exec/kernel_stepper.h), which runs the engine's own linearized kernels rather
than tinygrad's pickled UOp lists; the classes of this module raise, naming that."""


class _Interpreted:
  def __init__(self, *args, **kwargs):
    raise NotImplementedError(f"{type(self).__name__}: tinygrad's PYTHON device runs pickled UOp lists; Loupe interprets "
                              "its kernels in the kernel stepper (loupe-cli step / the app), not as a device")


class PythonProgram(_Interpreted): pass
class PythonRenderer(_Interpreted): pass
class PythonCompiler(_Interpreted): pass
class PythonAllocator(_Interpreted): pass
class PythonDevice(_Interpreted): pass
