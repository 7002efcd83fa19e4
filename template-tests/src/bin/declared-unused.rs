//! `make test`'s last check of `shared::permissions`: the declared requests that the whole test
//! run never sent (each test notes the ones it sent in `STORE_SENDS_USED`), so their grants can
//! go. Exits 1 when there are any, listing them.

use std::process::ExitCode;

use local_engine::declared::{USED_DIR, unused};

fn main() -> ExitCode {
    let Some(dir) = std::env::var_os(USED_DIR) else {
        eprintln!("declared-unused: {USED_DIR} names no folder of notes (make test sets it)");
        return ExitCode::FAILURE;
    };
    match unused(std::path::Path::new(&dir)) {
        Ok(unused) if unused.is_empty() => {
            println!("declared-unused: every declared request was sent by some test");
            ExitCode::SUCCESS
        }
        Ok(unused) => {
            eprintln!(
                "declared-unused: {} declared requests no test sent (drop the line and its grant, or test it):",
                unused.len()
            );
            for line in unused {
                eprintln!("  {line}");
            }
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("declared-unused: cannot read the notes in {dir:?}: {error}");
            ExitCode::FAILURE
        }
    }
}
