//! `make token`: prints a token `make dev` accepts, valid for an hour, signed by the local
//! issuer whose key lives beside the data file (`STORE_DATA_FILE`), and nothing else on stdout.
//!
//! Usage: store-token --customer ID | --staff [--sub SUBJECT]

use std::process::ExitCode;

use local_dev::auth::Issuer;
use shared::domain::ids::CustomerId;

fn main() -> ExitCode {
    match run() {
        Ok(token) => {
            println!("{token}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("store-token: {err}");
            eprintln!("usage: make token CUSTOMER=c1 | make token STAFF=1");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, local_dev::auth::Error> {
    let mut args = std::env::args().skip(1);
    let (mut customer, mut staff, mut sub) = (None, false, None);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--customer" => customer = Some(args.next().ok_or("--customer needs an ID")?),
            "--staff" => staff = true,
            "--sub" => sub = Some(args.next().ok_or("--sub needs a subject")?),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let subject = match (customer, staff) {
        (Some(id), false) => CustomerId::parse(&id)?.to_string(),
        (None, true) => sub.unwrap_or_else(|| "staff-1".to_owned()),
        (Some(_), true) => return Err("a token is for a customer or for staff, not both".into()),
        (None, false) => return Err("say whose token: CUSTOMER=<id> or STAFF=1".into()),
    };
    let issuer = Issuer::open(&local_dev::data_dir(&local_dev::data_file()))?;
    issuer.token(&subject, staff, chrono::Utc::now().timestamp())
}
