//! The HTTP API's contract, `api/openapi.yaml`, as the JSON `make dev` serves at `/openapi.json`.

use serde_json::Value;

/// The contract as written (YAML, for people), compiled in.
pub const YAML: &str = include_str!("../../../api/openapi.yaml");

/// The contract as JSON.
pub fn document() -> Result<Value, serde_yaml::Error> {
    serde_yaml::from_str(YAML)
}
