//! What each Lambda may send, declared once: every request a binary makes of the table (which
//! operation, on which entity or index partition, and for a write the spec that renders it),
//! of its stream, and of other services. template-tests derives each function's IAM grants from
//! this table and holds template.yaml's policies to them in both directions without running
//! anything (a grant missing, too broad or unused fails); every test holds every request a
//! handler sends to its binary's line here where it is sent (`local_engine::declared`), and
//! `make test` lists the lines no test sent.
//!
//! Key prefixes come from the entities' own key shapes ([`Entity::keys`]), attributes from the
//! specs in the entity files: nothing here spells a key or an attribute.

//!
//! The table itself is `table.rs`; the YAML fragments some functions' resources carry beyond
//! what is derived, `template.rs`.

mod groups;
mod pricing;
mod table;
mod template;

pub use table::FUNCTIONS;

use crate::domain::status::OrderStatus;
use crate::dynamo::keys::{
    CATEGORY_PREFIX, Entity, PRODUCT_PREFIX, REFUNDS_GSI1_PREFIX, RETURNS_GSI1_PREFIX,
    STATUS_PREFIX,
};
use crate::dynamo::query::Index;
use crate::dynamo::update::{DeleteSpec, PutSpec, UpdateSpec};

/// Which partitions of an index a Query reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexPartitions {
    /// GSI1: every status's orders, in every shard.
    AnyStatus,
    /// GSI1: one status's orders, in every shard.
    Status(OrderStatus),
    /// GSI1: the refunds, in every status.
    Refunds,
    /// GSI1: the returns, in every status.
    Returns,
    /// GSI2: every product's order lines.
    AnyProduct,
    /// GSI3: every product, with its variants.
    Products,
    /// GSI3: every category's listings.
    Categories,
}

impl IndexPartitions {
    /// The index partition keys it reads, as IAM's `dynamodb:LeadingKeys` matches them (`*`:
    /// any text).
    pub fn leading_keys(self) -> String {
        match self {
            IndexPartitions::AnyStatus => format!("{STATUS_PREFIX}*"),
            IndexPartitions::Status(status) => format!("{STATUS_PREFIX}{status}*"),
            IndexPartitions::Refunds => format!("{REFUNDS_GSI1_PREFIX}*"),
            IndexPartitions::Returns => format!("{RETURNS_GSI1_PREFIX}*"),
            IndexPartitions::AnyProduct | IndexPartitions::Products => {
                format!("{PRODUCT_PREFIX}*")
            }
            IndexPartitions::Categories => format!("{CATEGORY_PREFIX}*"),
        }
    }
}

/// One kind of request a function sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sends {
    /// GetItem of an entity.
    GetItem(Entity),
    /// BatchGetItem reading an entity (one line per entity it reads).
    BatchGetItem(Entity),
    /// Query of the table, in an entity's partitions.
    Query(Entity),
    /// Query of an index, in these partitions.
    QueryIndex(Index, IndexPartitions),
    /// PutItem (alone or in a transaction).
    PutItem(&'static PutSpec),
    /// UpdateItem (alone or in a transaction), rendered from these specs together.
    UpdateItem(&'static [&'static UpdateSpec]),
    /// DeleteItem (alone or in a transaction).
    DeleteItem(&'static DeleteSpec),
    /// The table's stream, read by the event source mapping on the function's behalf.
    ReadStream,
    /// A Secrets Manager secret's value, by the template's logical ID.
    GetSecret(&'static str),
    /// Messages to an SQS queue, by the template's logical ID.
    SendMessage(&'static str),
    /// Log events to a log group, by the template's logical ID.
    WriteLogs(&'static str),
    /// Events to an EventBridge bus, by the template's logical ID.
    PutEvents(&'static str),
    /// An SQS queue's messages, received and deleted by the event source mapping on the
    /// function's behalf (the template's logical ID).
    ReadQueue(&'static str),
    /// Emails through SES, from the template's sender address (`EmailSender`) only.
    SendEmail,
    /// Objects of an S3 bucket's `media/` keys read (GetObject, and URLs presigned for it), by
    /// the template's logical ID.
    ReadObjects(&'static str),
    /// Objects of an S3 bucket's `media/` keys put (PutObject: the grant a presigned upload is
    /// signed under), by the template's logical ID.
    UploadObjects(&'static str),
    /// Objects of an S3 bucket's `media/` keys deleted, by the template's logical ID.
    DeleteObjects(&'static str),
}

impl Sends {
    /// The entity a table request reads or writes (`None`: an index, the stream, another
    /// service).
    pub fn entity(self) -> Option<Entity> {
        match self {
            Sends::GetItem(entity) | Sends::BatchGetItem(entity) | Sends::Query(entity) => {
                Some(entity)
            }
            Sends::PutItem(spec) => Some(spec.entity),
            Sends::UpdateItem(specs) => specs.first().map(|spec| spec.entity),
            Sends::DeleteItem(spec) => Some(spec.entity),
            Sends::QueryIndex(..)
            | Sends::ReadStream
            | Sends::GetSecret(_)
            | Sends::SendMessage(_)
            | Sends::WriteLogs(_)
            | Sends::PutEvents(_)
            | Sends::ReadQueue(_)
            | Sends::SendEmail
            | Sends::ReadObjects(_)
            | Sends::UploadObjects(_)
            | Sends::DeleteObjects(_) => None,
        }
    }

    /// The attributes a write may name, keys included (`None` for a read).
    pub fn attributes(self) -> Option<Vec<&'static str>> {
        let mut names = match self {
            Sends::PutItem(spec) => spec.attributes.to_vec(),
            Sends::UpdateItem(specs) => specs.iter().flat_map(|s| s.attributes()).collect(),
            Sends::DeleteItem(spec) => spec.attributes(),
            _ => return None,
        };
        names.sort_unstable();
        names.dedup();
        Some(names)
    }
}

/// The partition keys of `entity`'s items as IAM's `dynamodb:LeadingKeys` matches them: its
/// key shape up to its first variable part, then `*` (`CUSTOMER#<customerId>` → `CUSTOMER#*`).
pub fn leading_keys(entity: Entity) -> String {
    let shape = entity.keys().0;
    match shape.find('<') {
        Some(at) => format!("{}*", &shape[..at]),
        None => shape.to_owned(),
    }
}

/// One Lambda, declared once: its Cargo binary, what it does, every kind of request it sends, and
/// what template.yaml gives it beyond what is derived. `make template` writes its resource in
/// template.yaml from this and from its routes in [`crate::http::routes::ROUTES`]: the name
/// (`get-order` → `GetOrderFunction`), the build, the description, the HTTP API events, the
/// least-privilege policy (or, with [`Sends::WriteLogs`], a role of its own and its log group),
/// and its errors alarm.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    /// The Cargo binary (template.yaml's `Metadata.BuildProperties.Binary`).
    pub binary: &'static str,
    /// What it does, in a sentence (the function's `Description`).
    pub description: &'static str,
    /// What it sends, beyond the warm-up read every function makes at init.
    pub sends: &'static [Sends],
    /// Its properties in template.yaml beyond those derived, as YAML fragments, each one or more
    /// properties written from the first column (a timeout, its environment, a trigger that
    /// is not a route).
    pub properties: &'static [&'static str],
    /// The template's condition it is deployed under, if any (its role and alarm too).
    pub condition: Option<&'static str>,
}

const fn function(
    binary: &'static str,
    description: &'static str,
    sends: &'static [Sends],
) -> Function {
    Function {
        binary,
        description,
        sends,
        properties: &[],
        condition: None,
    }
}

impl Function {
    /// With these properties in its resource, beyond the derived ones.
    const fn deployed_with(self, properties: &'static [&'static str]) -> Self {
        Function { properties, ..self }
    }

    /// Deployed only under the template's `condition`.
    const fn on_condition(self, condition: &'static str) -> Self {
        Function {
            condition: Some(condition),
            ..self
        }
    }
}

/// The declaration of `binary`.
pub fn of(binary: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|function| function.binary == binary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamo::entities;

    #[test]
    fn leading_keys_come_from_the_entities_key_shapes() {
        assert_eq!(leading_keys(Entity::Customer), "CUSTOMER#*");
        assert_eq!(leading_keys(Entity::IdempotencyRecord), "IDEMPOTENCY#*");
        assert_eq!(leading_keys(Entity::RefundDue), "REFUND#*");
        assert_eq!(
            IndexPartitions::Status(OrderStatus::PendingPayment).leading_keys(),
            "STATUS#PENDING_PAYMENT*"
        );
        assert_eq!(IndexPartitions::Refunds.leading_keys(), "REFUNDS#*");
    }

    #[test]
    fn each_binary_is_declared_once_and_every_route_binary_is_declared() {
        let mut binaries: Vec<&str> = FUNCTIONS.iter().map(|f| f.binary).collect();
        binaries.sort_unstable();
        binaries.dedup();
        assert_eq!(binaries.len(), FUNCTIONS.len());
        for route in crate::http::routes::ROUTES {
            assert!(of(route.binary).is_some(), "{route:?}");
        }
    }

    /// Every write spec an entity file declares is sent by some function (the migration's
    /// backfill, by the operator's `store-migrate`, aside), and every spec a function sends is
    /// one of the entity files' lists.
    #[test]
    fn every_declared_write_is_sent_and_every_sent_write_is_declared() {
        let sent: Vec<Sends> = FUNCTIONS
            .iter()
            .flat_map(|f| f.sends.iter().copied())
            .collect();
        for spec in entities::UPDATES {
            let used = sent.iter().any(|s| match s {
                Sends::UpdateItem(specs) => specs.contains(spec),
                _ => false,
            });
            assert!(
                used || crate::dynamo::migrations::UPDATES.contains(spec),
                "{spec:?} is sent by no function"
            );
        }
        for spec in entities::PUTS {
            assert!(
                sent.iter()
                    .any(|s| matches!(s, Sends::PutItem(p) if *p == *spec)),
                "{spec:?} is sent by no function"
            );
        }
        for spec in entities::DELETES {
            assert!(
                sent.iter()
                    .any(|s| matches!(s, Sends::DeleteItem(d) if *d == *spec)),
                "{spec:?} is sent by no function"
            );
        }
        for s in &sent {
            if let Sends::UpdateItem(specs) = s {
                for spec in *specs {
                    assert!(entities::UPDATES.contains(spec));
                    assert_eq!(Some(spec.entity), s.entity(), "one entity per update");
                }
            }
        }
    }
}
