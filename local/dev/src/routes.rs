//! The HttpApi routes template.yaml declares, and the binary each one runs.

use serde_yaml::Value;

pub use shared::domain::error::BoxError as Error;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Route {
    pub method: String,
    /// API Gateway syntax, `/customers/{customerId}` (axum's too).
    pub path: String,
    /// The function's logical ID in the template.
    pub function: String,
    /// `Metadata.BuildProperties.Binary`: the Cargo binary SAM builds for it.
    pub binary: String,
    /// Whether the API's JWT authorizer guards it (every route but one whose event says
    /// `Auth: {Authorizer: NONE}`: the payment webhook, which the provider's signature guards).
    pub authorized: bool,
}

impl Route {
    /// API Gateway's route key, `GET /customers/{customerId}`.
    pub fn key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

fn text<'a>(value: &'a Value, what: &str, function: &str) -> Result<&'a str, Error> {
    value
        .as_str()
        .ok_or_else(|| format!("{function}: {what} must be a plain string in template.yaml").into())
}

/// Every `HttpApi` event of every `AWS::Serverless::Function`, sorted.
pub fn from_template(template: &Value) -> Result<Vec<Route>, Error> {
    let resources = template["Resources"]
        .as_mapping()
        .ok_or("template.yaml has no Resources")?;
    let mut routes = Vec::new();
    for (name, resource) in resources {
        if resource["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        let function = name.as_str().unwrap_or_default().to_owned();
        let Some(events) = resource["Properties"]["Events"].as_mapping() else {
            continue;
        };
        for event in events.values() {
            if event["Type"].as_str() != Some("HttpApi") {
                continue;
            }
            let props = &event["Properties"];
            let binary = text(
                &resource["Metadata"]["BuildProperties"]["Binary"],
                "Metadata.BuildProperties.Binary",
                &function,
            )?;
            routes.push(Route {
                method: text(&props["Method"], "Method", &function)?.to_ascii_uppercase(),
                path: text(&props["Path"], "Path", &function)?.to_owned(),
                function: function.clone(),
                binary: binary.to_owned(),
                authorized: props["Auth"]["Authorizer"].as_str() != Some("NONE"),
            });
        }
    }
    routes.sort();
    Ok(routes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_in_the_template_runs_a_known_handler_and_every_handler_is_routed() {
        let template = local_engine::template::parse().expect("template parses");
        let routes = from_template(&template).expect("routes");
        let unknown: Vec<_> = routes.iter().filter(|r| !crate::knows(&r.binary)).collect();
        assert!(
            unknown.is_empty(),
            "routes to unknown binaries: {unknown:?}"
        );
        let routed: std::collections::BTreeSet<&str> =
            routes.iter().map(|r| r.binary.as_str()).collect();
        let known: std::collections::BTreeSet<&str> = crate::BINARIES.iter().copied().collect();
        assert_eq!(routed, known, "a handler make dev knows but no route runs");
        let keys: std::collections::BTreeSet<String> = routes.iter().map(Route::key).collect();
        assert_eq!(keys.len(), routes.len(), "two functions on one route");
        assert!(keys.contains("GET /customers/{customerId}"), "{keys:?}");
    }

    /// The route table dispatch enforces (`shared::http::routes`) names exactly the template's
    /// routes, each with the binary the template runs on it.
    #[test]
    fn the_route_table_is_the_templates_routes() {
        let template = local_engine::template::parse().expect("template parses");
        let mut ours: Vec<(String, String)> = from_template(&template)
            .expect("routes")
            .iter()
            .map(|r| (r.key(), r.binary.clone()))
            .collect();
        let mut table: Vec<(String, String)> = shared::http::routes::ROUTES
            .iter()
            .map(|r| (r.key.to_owned(), r.binary.to_owned()))
            .collect();
        ours.sort();
        table.sort();
        assert_eq!(table, ours);
    }
}
