//! Results handed to Python as Python objects (dicts, lists, numbers,
//! strings) built in Rust, in the order the result's fields are declared:
//! what `--format json` prints, without a JSON text for Python to parse.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// `v` as the Python object its `--format json` reads as (field order kept).
pub fn to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    from_text(py, &text)
}

/// The Python object of a serialised result (made where the GIL was not held).
/// The Python value of a Rust result (dicts, lists, numbers, strings), through its JSON.
pub fn from_value<T: serde::Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    from_text(py, &text)
}

/// The Python value of JSON `text`.
pub fn from_text(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    let mut de = serde_json::Deserializer::from_str(text);
    PyValue(py).deserialize(&mut de).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// Builds one Python value from a serde data stream.
struct PyValue<'py>(Python<'py>);

impl<'de, 'py> DeserializeSeed<'de> for PyValue<'py> {
    type Value = Py<PyAny>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Py<PyAny>, D::Error> {
        d.deserialize_any(self)
    }
}

fn py_err<E: serde::de::Error>(e: PyErr) -> E {
    E::custom(e.to_string())
}

impl<'de, 'py> Visitor<'de> for PyValue<'py> {
    type Value = Py<PyAny>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Py<PyAny>, E> {
        Ok(self.0.None())
    }

    fn visit_none<E>(self) -> Result<Py<PyAny>, E> {
        Ok(self.0.None())
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Py<PyAny>, E> {
        v.into_pyobject(self.0).map(|b| b.to_owned().into_any().unbind()).map_err(|e| match e {})
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Py<PyAny>, E> {
        v.into_pyobject(self.0).map(|x| x.into_any().unbind()).map_err(|e| match e {})
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Py<PyAny>, E> {
        v.into_pyobject(self.0).map(|x| x.into_any().unbind()).map_err(|e| match e {})
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Py<PyAny>, E> {
        v.into_pyobject(self.0).map(|x| x.into_any().unbind()).map_err(|e| match e {})
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Py<PyAny>, E> {
        v.into_pyobject(self.0).map(|x| x.into_any().unbind()).map_err(|e| match e {})
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Py<PyAny>, A::Error> {
        let list = PyList::empty(self.0);
        while let Some(v) = seq.next_element_seed(PyValue(self.0))? {
            list.append(v).map_err(py_err)?;
        }
        Ok(list.into_any().unbind())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Py<PyAny>, A::Error> {
        let dict = PyDict::new(self.0);
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(PyValue(self.0))?;
            dict.set_item(k, v).map_err(py_err)?;
        }
        Ok(dict.into_any().unbind())
    }
}
