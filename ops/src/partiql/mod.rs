//! `store-query`'s parts: which statements it sends (`statement`), how (`run`), and how it
//! prints what comes back (`render`).

pub mod render;
pub mod run;
pub mod statement;

pub use run::{Outcome, execute};
pub use statement::{Checked, Refusal, Target, check};
