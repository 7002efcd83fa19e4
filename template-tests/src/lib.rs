//! template.yaml's own tests live in `tests/template/`: what each function may do to the table
//! (`grants.rs`), and what whoever runs the stack is told (`operations.rs`). This library is the
//! template as they read it.

pub use local_engine::template::parse;

/// The template's resources of `kind` (`AWS::Serverless::Function`, ...), by logical ID.
pub fn resources_of<'a>(
    template: &'a serde_yaml::Value,
    kind: &'a str,
) -> impl Iterator<Item = (&'a str, &'a serde_yaml::Value)> + 'a {
    template["Resources"]
        .as_mapping()
        .into_iter()
        .flatten()
        .filter(move |(_, resource)| resource["Type"].as_str() == Some(kind))
        .filter_map(|(name, resource)| Some((name.as_str()?, resource)))
}

/// The template's functions (`AWS::Serverless::Function`), by logical ID.
pub fn functions(template: &serde_yaml::Value) -> impl Iterator<Item = (&str, &serde_yaml::Value)> {
    resources_of(template, "AWS::Serverless::Function")
}
