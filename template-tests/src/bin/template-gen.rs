//! `make template`: writes template.yaml's generated part (one errors alarm per function) anew
//! from its functions. `--check` writes nothing and fails when the file is not current.

use std::process::ExitCode;

fn main() -> ExitCode {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml");
    let check = std::env::args().any(|arg| arg == "--check");
    let result = std::fs::read_to_string(path)
        .map_err(|err| format!("{path}: {err}"))
        .and_then(|text| Ok((template_tests::generated::regenerate(&text)?, text)));
    match result {
        Ok((written, text)) if written == text => {
            println!("template.yaml's generated part is current");
            ExitCode::SUCCESS
        }
        Ok(_) if check => {
            eprintln!("template.yaml's generated part is not current: run `make template`");
            ExitCode::FAILURE
        }
        Ok((written, _)) => match std::fs::write(path, written) {
            Ok(()) => {
                println!("template.yaml's generated part written");
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("{path}: {err}");
                ExitCode::FAILURE
            }
        },
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
