//! The embedded plotly.js: the report must open offline (issue 19, "Self-contained").

/// plotly.min.js, from the `plotly` crate's embedded copy. That crate bundles MathJax with it
/// in one string; the report needs no TeX, and MathJax would add 2 MB, so only the first
/// script's body is kept.
pub fn source() -> String {
    let both = plotly::Plot::offline_js_sources();
    let start = both.find('>').map_or(0, |i| i + 1);
    let end = both[start..]
        .find("</script>")
        .map_or(both.len(), |i| start + i);
    both[start..end].to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_plotly_without_mathjax() {
        let js = super::source();
        assert!(js.contains("plotly.js v"), "not plotly.js");
        assert!(js.trim_end().ends_with("}));"), "more than plotly.min.js");
        assert!(!js.contains("__webpack_modules__"), "MathJax is embedded");
        assert!(!js.contains("</script"));
        assert!(js.len() < 5_000_000, "{} bytes", js.len());
    }
}
