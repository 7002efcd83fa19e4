//! What each declared request needs of IAM: the grants `make template` writes into each
//! function's policy, and that the template's tests hold its policies to.

use std::collections::BTreeMap;

use shared::dynamo::query::Index;
use shared::permissions::{self, Sends};

pub const TABLE: &str = "!GetAtt AppTable.Arn";
pub const STREAM: &str = "!GetAtt AppTable.StreamArn";

/// One grant a declared request needs: the action, the resource, the partitions
/// (`dynamodb:LeadingKeys`, for the table and its indexes) and, for a write, the attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needed {
    pub action: &'static str,
    pub resource: String,
    pub leading_keys: Option<String>,
    pub attributes: Option<Vec<String>>,
    /// Conditions of other services' grants (`operator key` to values), as written.
    pub conditions: BTreeMap<String, Vec<String>>,
}

/// The identities the email subscriber may send as: the sender's address, and its domain.
pub const SES_IDENTITIES: &str =
    "- !Sub arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${EmailSender}
- !Sub
  - arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${Domain}
  - Domain: !Select
    - 1
    - !Split
      - '@'
      - !Ref EmailSender";

/// The resource an index's grants name.
pub fn index_arn(index: Index) -> String {
    let name = match index {
        Index::Table => return TABLE.to_owned(),
        Index::Gsi1 => shared::dynamo::keys::GSI1,
        Index::Gsi2 => shared::dynamo::keys::GSI2,
        Index::Gsi3 => shared::dynamo::keys::GSI3,
    };
    format!("!Sub ${{AppTable.Arn}}/index/{name}")
}

/// The pictures' objects of bucket `id`: its `media/` keys only.
fn media_objects(id: &str) -> String {
    format!("!Sub ${{{id}.Arn}}/media/*")
}

/// The grants one declared request needs, derived from the declaration alone.
pub fn needed(sends: Sends) -> Vec<Needed> {
    let on_table = |action, entity| Needed {
        action,
        resource: TABLE.to_owned(),
        leading_keys: Some(permissions::leading_keys(entity)),
        attributes: sends
            .attributes()
            .map(|names| names.into_iter().map(str::to_owned).collect()),
        conditions: BTreeMap::new(),
    };
    let other = |action, resource: String| Needed {
        action,
        resource,
        leading_keys: None,
        attributes: None,
        conditions: BTreeMap::new(),
    };
    match sends {
        Sends::GetItem(e) => vec![on_table("dynamodb:GetItem", e)],
        Sends::BatchGetItem(e) => vec![on_table("dynamodb:BatchGetItem", e)],
        Sends::Query(e) => vec![on_table("dynamodb:Query", e)],
        Sends::QueryIndex(index, partitions) => vec![Needed {
            action: "dynamodb:Query",
            resource: index_arn(index),
            leading_keys: Some(partitions.leading_keys()),
            attributes: None,
            conditions: BTreeMap::new(),
        }],
        Sends::PutItem(spec) => vec![on_table("dynamodb:PutItem", spec.entity)],
        Sends::DeleteItem(spec) => vec![on_table("dynamodb:DeleteItem", spec.entity)],
        Sends::UpdateItem(_) => {
            let entity = sends.entity().expect("an update names its entity");
            vec![on_table("dynamodb:UpdateItem", entity)]
        }
        Sends::ReadStream => [
            "dynamodb:DescribeStream",
            "dynamodb:GetRecords",
            "dynamodb:GetShardIterator",
            "dynamodb:ListStreams",
        ]
        .into_iter()
        .map(|action| other(action, STREAM.to_owned()))
        .collect(),
        Sends::GetSecret(id) => vec![other("secretsmanager:GetSecretValue", format!("!Ref {id}"))],
        Sends::SendMessage(id) => vec![other("sqs:SendMessage", format!("!GetAtt {id}.Arn"))],
        Sends::WriteLogs(id) => ["logs:CreateLogStream", "logs:PutLogEvents"]
            .into_iter()
            .map(|action| other(action, format!("!GetAtt {id}.Arn")))
            .collect(),
        Sends::PutEvents(id) => vec![other("events:PutEvents", format!("!GetAtt {id}.Arn"))],
        Sends::ReadQueue(id) => [
            "sqs:ReceiveMessage",
            "sqs:DeleteMessage",
            "sqs:GetQueueAttributes",
        ]
        .into_iter()
        .map(|action| other(action, format!("!GetAtt {id}.Arn")))
        .collect(),
        Sends::ReadObjects(id) => vec![other("s3:GetObject", media_objects(id))],
        Sends::UploadObjects(id) => vec![other("s3:PutObject", media_objects(id))],
        Sends::DeleteObjects(id) => vec![other("s3:DeleteObject", media_objects(id))],
        // From the sender's address alone, under its identity or its domain's.
        Sends::SendEmail => vec![Needed {
            conditions: BTreeMap::from([(
                "StringEquals ses:FromAddress".to_owned(),
                vec!["!Ref EmailSender".to_owned()],
            )]),
            ..other("ses:SendEmail", SES_IDENTITIES.to_owned())
        }],
    }
}
