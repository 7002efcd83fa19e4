//! template.yaml's own tests live in `tests/template/`: what each function may do to the table
//! (`grants.rs`), and what whoever runs the stack is told (`operations.rs`). This library is the
//! template as they read it.

pub mod generated;
pub mod needs;

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

/// The policies a function is granted: the documents written in its inline `Policies` (or its
/// role's), and the managed policies either attaches (`!Ref WarmUpPolicy`), as written.
pub fn attached_policies<'a>(
    template: &'a serde_yaml::Value,
    function: &'a serde_yaml::Value,
) -> (Vec<serde_yaml::Value>, Vec<&'a serde_yaml::Value>) {
    let properties = &function["Properties"];
    match &properties["Role"] {
        serde_yaml::Value::Null => {
            let policies = properties["Policies"].as_sequence().expect("Policies");
            let (managed, inline): (Vec<_>, Vec<_>) = policies.iter().partition(|p| is_ref(p));
            (inline.into_iter().cloned().collect(), managed)
        }
        role => {
            let name = referred(role, "GetAtt").trim_end_matches(".Arn");
            let role = &template["Resources"][name]["Properties"];
            let inline = role["Policies"].as_sequence().expect("role policies");
            let managed = role["ManagedPolicyArns"].as_sequence();
            (
                inline.iter().map(|p| p["PolicyDocument"].clone()).collect(),
                managed.into_iter().flatten().collect(),
            )
        }
    }
}

/// The IAM statements a function is granted: those of its [`attached_policies`], each managed
/// one looked up in the template.
pub fn policy_statements(
    template: &serde_yaml::Value,
    function: &serde_yaml::Value,
) -> Vec<serde_yaml::Value> {
    let (documents, managed) = attached_policies(template, function);
    let managed = managed.into_iter().map(|reference| {
        let policy = &template["Resources"][referred(reference, "Ref")];
        assert_eq!(
            policy["Type"].as_str(),
            Some("AWS::IAM::ManagedPolicy"),
            "{reference:?}: a managed policy of this template"
        );
        policy["Properties"]["PolicyDocument"].clone()
    });
    documents
        .into_iter()
        .chain(managed)
        .flat_map(|policy| {
            let statements = policy["Statement"].as_sequence().unwrap_or_else(|| {
                panic!("only inline or the template's own managed policies: {policy:?}")
            });
            statements.clone()
        })
        .collect()
}

fn is_ref(value: &serde_yaml::Value) -> bool {
    matches!(value, serde_yaml::Value::Tagged(tagged) if tagged.tag == "Ref")
}

/// The name a `!Ref` or `!GetAtt` names.
fn referred<'a>(value: &'a serde_yaml::Value, tag: &str) -> &'a str {
    match value {
        serde_yaml::Value::Tagged(tagged) if tagged.tag == tag => {
            tagged.value.as_str().expect("a name")
        }
        other => panic!("not a !{tag}: {other:?}"),
    }
}
