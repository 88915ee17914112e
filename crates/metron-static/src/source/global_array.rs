//! Arrays defined at file scope (`double A[N][N];`) with their sizes as the source was parsed.
//! A binary built with other `-D` sizes than the ones given to metron has arrays of other
//! sizes: its symbol table says so (`Binary::arrays`), DWARF does not (it records no `-D`),
//! and the model would count the source's default sizes where the code does not fix them.

use serde_json::Value;

use super::{scalar_size, Walk};

/// An array of scalars defined at file scope in the main file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GlobalArray {
    pub name: String,
    pub line: u32,
    /// Its size in bytes with the macros as parsed.
    pub bytes: u64,
}

impl Walk {
    /// Records a file-scope `T name[a][b]...` whose element type is a scalar.
    pub(super) fn global_array(&mut self, node: &Value, line: u32) {
        let Some(name) = node.get("name").and_then(Value::as_str) else {
            return;
        };
        // `extern double a[];` defines nothing: its size is another unit's.
        if node.get("storageClass").and_then(Value::as_str) == Some("extern") {
            return;
        }
        let ty = node.get("type");
        let text = ty
            .and_then(|t| t.get("desugaredQualType").or_else(|| t.get("qualType")))
            .and_then(Value::as_str);
        if let Some(bytes) = text.and_then(array_bytes) {
            self.model.global_arrays.push(GlobalArray {
                name: name.to_string(),
                line,
                bytes,
            });
        }
    }
}

/// The bytes of an array type as clang prints it (`double[100][200]`, `float [64]`); `None`
/// for anything else (a struct element, an incomplete `[]`, a pointer).
fn array_bytes(ty: &str) -> Option<u64> {
    let open = ty.find('[')?;
    let element = u64::try_from(scalar_size(ty[..open].trim())?).ok()?;
    let mut bytes = element;
    for dim in ty[open..].split_terminator(']') {
        let n: u64 = dim.trim().strip_prefix('[')?.trim().parse().ok()?;
        bytes = bytes.checked_mul(n)?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::array_bytes;

    #[test]
    fn array_types_are_sized_as_the_abi_lays_them_out() {
        assert_eq!(array_bytes("double[192]"), Some(1536));
        assert_eq!(array_bytes("float [64][32]"), Some(4 * 64 * 32));
        assert_eq!(array_bytes("int[3][4][5]"), Some(240));
        assert_eq!(array_bytes("double[]"), None);
        assert_eq!(array_bytes("struct point[8]"), None);
        assert_eq!(array_bytes("double *"), None);
        assert_eq!(array_bytes("double (*)[10]"), None);
    }
}
