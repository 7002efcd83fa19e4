//! `make template`: writes template.yaml's generated part (one errors alarm per function) anew
//! from its functions. Whether the committed file is current is a test's to say
//! (`the_templates_generated_alarms_are_current`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml");
    let written = std::fs::read_to_string(path)
        .map_err(|err| format!("{path}: {err}"))
        .and_then(|text| template_tests::generated::regenerate(&text))
        .and_then(|written| std::fs::write(path, written).map_err(|err| format!("{path}: {err}")));
    match written {
        Ok(()) => {
            println!("template.yaml's generated part written");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{err}");
            ExitCode::FAILURE
        }
    }
}
