//! Escaping of every name that comes from users' programs or files (regions, benchmarks,
//! commands, parameters) before it enters the page (issue 19, "Escaping").

use serde::Serialize;

/// Text for HTML element content and quoted attribute values.
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Text that plotly.js draws (trace names, category labels, hover text). plotly.js reads a
/// subset of HTML in them (`<b>`, `<br>`, `<a href>`) and drops tags it does not know, so a
/// C++ region `std::vector<int>::push_back` would lose `<int>`; its entities (`&lt;`) are
/// drawn as the characters, so escaping shows every name as it is.
pub fn plotly(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// JSON that is safe inside a `<script>` element: `<`, `>` and `&` become `\u003c`, `\u003e`,
/// `\u0026`, so no string can close the element (`</script>`) or open a comment (`<!--`);
/// U+2028/U+2029 are escaped for older JavaScript parsers. The value parses the same.
pub fn json_for_script<T: Serialize + ?Sized>(value: &T) -> String {
    // Serialising plain data (strings, numbers, maps with string keys) cannot fail.
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVIL: &str = "<script>alert(1)</script>";

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(html(EVIL), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(html("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
    }

    #[test]
    fn plotly_text_keeps_template_arguments_literal() {
        assert_eq!(plotly("std::vector<int>&"), "std::vector&lt;int&gt;&amp;");
        assert_eq!(plotly(EVIL), "&lt;script&gt;alert(1)&lt;/script&gt;");
    }

    #[test]
    fn script_json_has_no_angle_brackets_and_round_trips() {
        let v = serde_json::json!({ "name": EVIL, "x": ["<!--", "a&b", "\u{2028}"] });
        let s = json_for_script(&v);
        assert!(
            !s.contains('<') && !s.contains('>') && !s.contains('&'),
            "{s}"
        );
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
    }
}
