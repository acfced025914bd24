// Helpers shared by the Python bindings (bindings.cpp and bind_*.cpp): checking caller-provided
// NumPy buffers, integers (integer_in: the one bounds check every binding uses), seeds given as
// Python integers, and search parameters read from a dict by key.  Every check fails with a
// one-line ValueError saying what was expected and what was given: these are memory-safety and
// type checks; what a value means is validated once, in Python.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace zav::pyutil {

namespace py = pybind11;

inline bool native_order(const py::dtype& dt) {
  const char order = dt.byteorder();
  const uint16_t probe = 1;
  const bool little = *reinterpret_cast<const uint8_t*>(&probe) == 1;
  return order == '=' || order == '|' || order == (little ? '<' : '>');
}
// A native-order dtype of kind `Kind` ('f' float, 'i' signed int) and `Size` bytes.
template <char Kind, int Size>
bool is_dtype(const py::dtype& dt) {
  return dt.kind() == Kind && dt.itemsize() == Size && native_order(dt);
}
inline constexpr auto is_float32 = &is_dtype<'f', 4>;
inline constexpr auto is_int32 = &is_dtype<'i', 4>;
inline constexpr auto is_int64 = &is_dtype<'i', 8>;
inline bool is_byte(const py::dtype& dt) {  // int8, uint8 or bool
  const int num = dt.num();
  return num == py::detail::npy_api::NPY_BYTE_ || num == py::detail::npy_api::NPY_UBYTE_ ||
         num == py::detail::npy_api::NPY_BOOL_;
}

// A shape as Python writes it; a dimension of -1 (any size) shows as N.
inline std::string dims_str(const py::ssize_t* dims, std::size_t n) {
  std::string text = "(";
  for (std::size_t i = 0; i < n; ++i)
    text += (i ? ", " : "") + (dims[i] < 0 ? std::string("N") : std::to_string(dims[i]));
  return text + (n == 1 ? ",)" : ")");
}
inline std::string shape_str(const py::array& a) {
  return dims_str(a.shape(), static_cast<std::size_t>(a.ndim()));
}

// obj as a C-contiguous NumPy array of the shape `dims` (-1: any size) whose dtype passes
// `ok`, writeable unless `input`; else a one-line ValueError.
inline py::array checked_array(const py::handle& obj, const char* what, const char* dtype_name,
                               bool (*ok)(const py::dtype&),
                               std::initializer_list<py::ssize_t> dims, bool input = false,
                               bool contiguous = true) {
  const std::string expected =
      std::string(what) + " must be a " + dtype_name + " numpy array of shape " +
      dims_str(dims.begin(), dims.size());
  if (!py::isinstance<py::array>(obj))
    throw py::value_error(expected + ", got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  auto a = py::reinterpret_borrow<py::array>(obj);
  bool good = a.ndim() == static_cast<py::ssize_t>(dims.size()) && ok(a.dtype());
  if (good) {
    int i = 0;
    for (py::ssize_t d : dims) {
      good = good && (d < 0 || a.shape(i) == d);
      ++i;
    }
  }
  if (!good)
    throw py::value_error(expected + ", got " + std::string(py::str(a.dtype())) + " " +
                          shape_str(a));
  if (contiguous && !(a.flags() & py::array::c_style))
    throw py::value_error(std::string(what) + " must be C-contiguous");
  if (!input && !a.writeable()) throw py::value_error(std::string(what) + " must be writeable");
  return a;
}

// The data pointer of checked_array(...).
inline void* buffer(const py::handle& obj, const char* what, const char* dtype_name,
                    bool (*ok)(const py::dtype&), std::initializer_list<py::ssize_t> dims,
                    bool input = false) {
  py::array a = checked_array(obj, what, dtype_name, ok, dims, input);
  return input ? const_cast<void*>(a.data()) : a.mutable_data();
}

// A Python int >= 0 of any size as 32-bit words, least significant first (random.seed(int)).
// Python and NumPy integers pass (anything with __index__); bools, floats and the rest do not.
inline std::vector<uint32_t> seed_words(const py::handle& seed) {
  const std::string bad = "seed must be a non-negative integer, got " + std::string(py::repr(seed));
  if (PyBool_Check(seed.ptr()) || PyFloat_Check(seed.ptr())) throw py::value_error(bad);
  PyObject* index = PyNumber_Index(seed.ptr());
  if (!index) {
    PyErr_Clear();
    throw py::value_error(bad);
  }
  py::int_ value = py::reinterpret_steal<py::int_>(index);
  if (value.attr("__lt__")(py::int_(0)).cast<bool>()) throw py::value_error(bad);
  std::size_t bits = value.attr("bit_length")().cast<std::size_t>();
  std::size_t nwords = bits == 0 ? 1 : (bits + 31) / 32;
  std::string b = py::bytes(value.attr("to_bytes")(nwords * 4, "little"));
  std::vector<uint32_t> words(nwords);
  for (std::size_t i = 0; i < nwords; ++i)
    words[i] = static_cast<uint32_t>(static_cast<unsigned char>(b[4 * i])) |
               static_cast<uint32_t>(static_cast<unsigned char>(b[4 * i + 1])) << 8 |
               static_cast<uint32_t>(static_cast<unsigned char>(b[4 * i + 2])) << 16 |
               static_cast<uint32_t>(static_cast<unsigned char>(b[4 * i + 3])) << 24;
  return words;
}

// obj as an integer in [lo, hi] (a Python or NumPy int, not a bool), else the one-line ValueError
// "<name> must be in [lo, hi] (an integer), got <obj>"; name() is called only then.
template <class Name>
long long integer_in(const py::handle& obj, long long lo, long long hi, Name&& name) {
  PyObject* o = obj.ptr();
  auto idx = PyBool_Check(o) || !PyIndex_Check(o)
                 ? py::object()
                 : py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!idx) PyErr_Clear();
  int overflow = 0;
  const long long v = idx ? PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow) : 0;
  if (!idx || overflow || v < lo || v > hi)
    throw py::value_error(std::string(name()) + " must be in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "] (an integer), got " + std::string(py::repr(obj)));
  return v;
}
inline long long integer_in(const py::handle& obj, long long lo, long long hi, const char* name) {
  return integer_in(obj, lo, hi, [name] { return name; });
}

// ---- search parameters read from a Python dict (bind_search.cpp) ------------------------
// Each failure is one ValueError line starting with `who` (the binding's name) and the key.

inline double number(const char* who, const py::handle& v, const char* key) {
  if (py::isinstance<py::bool_>(v) ||
      !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)))
    throw py::value_error(std::string(who) + ": '" + key + "' must be a number, got " +
                          std::string(py::repr(v)));
  const double x = v.cast<double>();
  if (!std::isfinite(x)) throw py::value_error(std::string(who) + ": '" + key + "' must be finite");
  return x;
}


// A wall-clock budget: a number in (0, max_seconds].
inline double seconds_in_range(const char* who, const py::handle& v, const char* key,
                               double max_seconds) {
  const double x = number(who, v, key);
  if (!(x > 0 && x <= max_seconds))
    throw py::value_error(std::string(who) + ": " + key + " must be in (0, " +
                          std::to_string(static_cast<int>(max_seconds)) + "], got " +
                          std::string(py::repr(v)));
  return x;
}

// The budget keys every search takes, from its parameter dict: "iterations" (an integer in
// [1, max_iterations]; None: keep the default), "seconds" (None: keep) and "max_seconds" (both
// in (0, max_seconds]).
template <class Params>
void read_budget(const char* who, const py::dict& d, Params& p, long long max_iterations,
                 double max_seconds) {
  if (d.contains("iterations") && !d["iterations"].is_none()) {
    p.iterations = integer_in(d["iterations"], 1, max_iterations,
                              [who] { return std::string(who) + ": iterations"; });
  }
  if (d.contains("seconds") && !d["seconds"].is_none())
    p.seconds = seconds_in_range(who, d["seconds"], "seconds", max_seconds);
  if (d.contains("max_seconds"))
    p.max_seconds = seconds_in_range(who, d["max_seconds"], "max_seconds", max_seconds);
}

// Every key of a parameter dict must be one of `keys`.
template <std::size_t N>
void check_keys(const char* who, const py::dict& d, const char* const (&keys)[N]) {
  for (auto item : d) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    if (known) continue;
    std::string names;
    for (const char* k : keys) names += (names.empty() ? "" : ", ") + std::string(k);
    throw py::value_error(std::string(who) + ": unknown parameter '" + key + "'; known: " + names);
  }
}

// d[key] (when present) as the index of one of `names`; `fallback` when absent.
inline int choice(const char* who, const py::dict& d, const char* key,
                  std::initializer_list<const char*> names, int fallback) {
  if (!d.contains(key)) return fallback;
  const std::string v = py::str(d[key]);
  std::string listed;
  int i = 0;
  for (const char* name : names) {
    if (v == name) return i;
    listed += (i++ ? ", '" : "'") + std::string(name) + "'";
  }
  throw py::value_error(std::string(who) + ": " + key + " must be one of " + listed + ", got '" +
                        v + "'");
}

// d[key] (when present) as an integer >= lo, capped at hi; `fallback` when absent.
inline int count(const char* who, const py::dict& d, const char* key, long long lo, long long hi,
                 int fallback) {
  if (!d.contains(key)) return fallback;
  const long long v = integer_in(d[key], lo, LLONG_MAX,
                                 [&] { return std::string(who) + ": '" + key + "'"; });
  return static_cast<int>(std::clamp(v, std::max(lo, -1000000000LL), hi));
}

// d[key] (when present) as a finite number in [lo, hi]; `fallback` when absent.
inline double number_in(const char* who, const py::dict& d, const char* key, double lo, double hi,
                        double fallback) {
  if (!d.contains(key)) return fallback;
  const double x = number(who, d[key], key);
  if (x < lo || x > hi)
    throw py::value_error(std::string(who) + ": '" + key + "' must be in [" + std::to_string(lo) +
                          ", " + std::to_string(hi) + "]");
  return x;
}

// d[key]'s truth (when present); `fallback` when absent.
inline bool flag(const py::dict& d, const char* key, bool fallback) {
  return d.contains(key) ? py::bool_(d[key]).cast<bool>() : fallback;
}

// A search's Ctrl-C poll: the search runs without the GIL, so on Python's main thread (the only
// one that handles signals) it takes the GIL back now and then to let Python run its SIGINT
// handler; true once that raised (KeyboardInterrupt, raised again after the search).
inline std::function<bool()> ctrl_c_poll() {
  py::module_ threading = py::module_::import("threading");
  if (!threading.attr("get_ident")().equal(threading.attr("main_thread")().attr("ident")))
    return {};
  return [] {
    py::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  };
}

}  // namespace zav::pyutil
