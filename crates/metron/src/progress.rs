//! Progress bars on stderr for anything that can take more than a second. indicatif hides
//! them by itself when stderr is not a terminal (CI logs, pipes).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub fn bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
    {
        bar.set_style(style);
    }
    bar
}
