//! Sections of the report: one per kind of data present, and only when that data exists
//! (issue 19, "Sections"). Each builder turns typed results of another crate into figures.

pub mod measurement;
pub mod pep;
pub mod profile;
pub mod tuning;

use serde::Serialize;
use serde_json::Value;

/// The kinds of data the report knows how to show, in page order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionKind {
    Profiles,
    Pep,
    Measurements,
    Tuning,
}

impl SectionKind {
    pub fn title(self) -> &'static str {
        match self {
            SectionKind::Profiles => "Profiles",
            SectionKind::Pep => "PEP traces",
            SectionKind::Measurements => "Measurements",
            SectionKind::Tuning => "Tuning",
        }
    }

    /// The section's anchor in the page.
    pub fn id(self) -> &'static str {
        match self {
            SectionKind::Profiles => "profiles",
            SectionKind::Pep => "pep",
            SectionKind::Measurements => "measurements",
            SectionKind::Tuning => "tuning",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub kind: SectionKind,
    /// One line under the heading: where the data came from.
    pub summary: String,
    pub figures: Vec<Figure>,
}

/// One plotly.js figure: its traces and layout exactly as plotly.js reads them. Names inside
/// are raw; the renderer escapes them.
#[derive(Debug, Clone, Serialize)]
pub struct Figure {
    pub title: String,
    pub data: Vec<Value>,
    pub layout: Value,
    /// A click on a point shows the point's `customdata` (plain text) below the plot.
    pub click_details: bool,
}

impl Figure {
    pub fn new(title: String, data: Vec<Value>, layout: Value) -> Figure {
        Figure {
            title,
            data,
            layout,
            click_details: false,
        }
    }

    pub fn with_click_details(self) -> Figure {
        Figure {
            click_details: true,
            ..self
        }
    }
}

/// Drops the sections that would be empty, so the page has one per kind of data present.
pub fn present(sections: impl IntoIterator<Item = Option<Section>>) -> Vec<Section> {
    sections
        .into_iter()
        .flatten()
        .filter(|s| !s.figures.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_figures(kind: SectionKind, n: usize) -> Section {
        let f = Figure::new("f".into(), vec![], Value::Null);
        Section {
            kind,
            summary: String::new(),
            figures: vec![f; n],
        }
    }

    #[test]
    fn only_sections_with_data_are_kept_in_order() {
        let kept = present([
            Some(with_figures(SectionKind::Profiles, 0)),
            None,
            Some(with_figures(SectionKind::Measurements, 2)),
            Some(with_figures(SectionKind::Tuning, 1)),
        ]);
        let kinds: Vec<SectionKind> = kept.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [SectionKind::Measurements, SectionKind::Tuning]);
    }
}
