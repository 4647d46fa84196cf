// Engine errors reach Python as the exception tinygrad raises for the same mistake (support/error.h's
// ErrorKind), with the engine's message; an internal bug is a RuntimeError naming file and line. Ctrl-C:
// the engine asks between kernels, compiles and BEAM candidates whether a signal is pending.
// InputsCaptured (a re-run that captured the kernel inputs it was started for) is loupe.InputsCaptured.
#include "common.h"
#include "exec/exec_item.h"
#include "support/error.h"

namespace loupe::python {

namespace {

PyObject* python_class(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Value: return PyExc_ValueError;
  case ErrorKind::Type: return PyExc_TypeError;
  case ErrorKind::Index: return PyExc_IndexError;
  case ErrorKind::Assertion: return PyExc_AssertionError;
  case ErrorKind::NotImplemented: return PyExc_NotImplementedError;
  case ErrorKind::Attribute: return PyExc_AttributeError;
  case ErrorKind::Interrupt: return PyExc_KeyboardInterrupt;
  case ErrorKind::Runtime: break;
  }
  return PyExc_RuntimeError;
}

// Runs the Python signal handlers (only where that is allowed: the main thread, holding the GIL). A
// handler that raised (KeyboardInterrupt) leaves its exception set for the translator below.
bool python_signal_pending() { return PyGILState_Check() && PyErr_CheckSignals() != 0; }

} // namespace

void bind_errors(py::module_& m) {
  // A BaseException, as SystemExit is: a program's `except Exception` must not swallow the stop.
  static py::handle captured = py::exception<InputsCaptured>(m, "InputsCaptured", PyExc_BaseException).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputsCaptured& e) {
      PyErr_SetString(captured.ptr(), e.what());
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupt && PyErr_Occurred()) return;  // the handler's own exception
      PyErr_SetString(python_class(e.kind()), e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  set_interrupt_check(&python_signal_pending);
}

} // namespace loupe::python
