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

use crate::domain::status::OrderStatus;
use crate::dynamo::entities::{
    cancellation, cart_line, cart_version, catalog_entry, counted_order, customer, customer_email,
    fulfilment, idempotency, line_item, open_order_count, order_header, order_listing,
    order_return, payment_event, payment_order, product, refund, refund_due, unread_event,
};
use crate::dynamo::keys::{
    Entity, PRODUCT_PREFIX, REFUNDS_GSI1_PREFIX, RETURNS_GSI1_PREFIX, STATUS_PREFIX,
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
            IndexPartitions::AnyProduct => format!("{PRODUCT_PREFIX}*"),
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
            | Sends::SendEmail => None,
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

/// One Lambda: its Cargo binary and every kind of request it sends.
#[derive(Debug)]
pub struct Function {
    /// The Cargo binary (template.yaml's `Metadata.BuildProperties.Binary`).
    pub binary: &'static str,
    /// What it sends, beyond the warm-up read every function makes at init.
    pub sends: &'static [Sends],
}

const fn function(binary: &'static str, sends: &'static [Sends]) -> Function {
    Function { binary, sends }
}

use Sends::{
    BatchGetItem, DeleteItem, GetItem, GetSecret, PutEvents, PutItem, Query, QueryIndex, ReadQueue,
    ReadStream, SendEmail, SendMessage, UpdateItem, WriteLogs,
};

// What placing an order (or a checkout) reads first, in one BatchGetItem: the customer, the
// products and the idempotency record.
/// The customer, read with the order's inputs.
const INPUT_CUSTOMER: Sends = BatchGetItem(Entity::Customer);
/// The products, read with the order's inputs.
const INPUT_PRODUCTS: Sends = BatchGetItem(Entity::Product);
/// The idempotency record, read with the order's inputs.
const INPUT_IDEMPOTENCY: Sends = BatchGetItem(Entity::IdempotencyRecord);

// A status change: header and listing, the stock given back, the place released.
/// The header moved.
const MOVE_HEADER: Sends = UpdateItem(&[&order_header::STATUS_CHANGE]);
/// The listing moved (its GSI1PK following the status).
const MOVE_LISTING: Sends = UpdateItem(&[&order_listing::STATUS_CHANGE]);
/// The lines' stock given back to their products.
const STOCK_BACK: Sends = UpdateItem(&[&product::STOCK_UPDATE]);
/// The customer's place under the caps released.
const RELEASE_PLACE: Sends = UpdateItem(&[&open_order_count::COUNT_UPDATE]);

/// Every Lambda of the template, and what it sends.
pub const FUNCTIONS: &[Function] = &[
    function("get-customer", &[GetItem(Entity::Customer)]),
    function("put-customer", &[UpdateItem(&[&customer::PROFILE_UPDATE])]),
    function("list-customer-orders", &[Query(Entity::OrderListing)]),
    function(
        "place-order",
        &[
            INPUT_CUSTOMER,
            INPUT_PRODUCTS,
            INPUT_IDEMPOTENCY,
            UpdateItem(&[&product::TAKE_STOCK]),
            PutItem(&order_listing::PUT),
            PutItem(&order_header::PUT),
            PutItem(&line_item::PUT),
            UpdateItem(&[&open_order_count::COUNT_UPDATE]),
            PutItem(&idempotency::PUT),
        ],
    ),
    function("get-cart", &[Query(Entity::CartLine)]),
    function(
        "edit-cart",
        &[
            Query(Entity::CartLine),
            GetItem(Entity::Product),
            // A new line moves the cart's version on, if it is still the one read.
            GetItem(Entity::CartVersion),
            UpdateItem(&[&cart_version::MOVE_ON]),
            PutItem(&cart_line::PUT),
            DeleteItem(&cart_line::REMOVE),
        ],
    ),
    function(
        "checkout",
        &[
            Query(Entity::CartLine),
            INPUT_CUSTOMER,
            INPUT_PRODUCTS,
            INPUT_IDEMPOTENCY,
            // The customer's count: whether it has its map of held units yet.
            BatchGetItem(Entity::OpenOrderCount),
            UpdateItem(&[&product::TAKE_STOCK]),
            PutItem(&order_listing::PUT_HOLD),
            PutItem(&order_header::PUT_HOLD),
            PutItem(&line_item::PUT),
            UpdateItem(&[&open_order_count::COUNT_UPDATE]),
            DeleteItem(&cart_line::TAKE),
            PutItem(&idempotency::PUT),
            // A replay answers the first checkout's order as it is now.
            Query(Entity::OrderHeader),
            UpdateItem(&[&order_header::PAYMENT_INTENT]),
            GetSecret("PaymentApiKeySecret"),
        ],
    ),
    function(
        "payment-webhook",
        &[
            GetItem(Entity::OrderHeader),
            UpdateItem(order_header::PAID),
            UpdateItem(&[&order_listing::STATUS_CHANGE]),
            PutItem(&payment_event::PUT),
            PutItem(&refund::PUT),
            PutItem(&refund_due::PUT),
            PutItem(&refund_due::POINTER),
            PutItem(&unread_event::PUT),
            UpdateItem(&[&order_header::PAYMENT_FAILED]),
            GetItem(Entity::OrderRefund),
            GetItem(Entity::RefundDue),
            UpdateItem(&[&refund::SETTLE]),
            UpdateItem(&[&refund_due::SETTLE]),
            UpdateItem(&[&order_header::REFUND]),
            // A refund that failed gives its lines back.
            UpdateItem(&[&line_item::BACK]),
            // A dispute: the order its payment placed, found by the payment, flagged.
            PutItem(&payment_order::PUT),
            GetItem(Entity::PaymentOrder),
            UpdateItem(&[&order_header::DISPUTE]),
            Query(Entity::OrderHeader),
            UpdateItem(order_header::ENDED_BY_PROVIDER),
            STOCK_BACK,
            RELEASE_PLACE,
            GetSecret("PaymentWebhookSecret"),
        ],
    ),
    function(
        "expire-holds",
        &[
            QueryIndex(
                Index::Gsi1,
                IndexPartitions::Status(OrderStatus::PendingPayment),
            ),
            Query(Entity::OrderHeader),
            UpdateItem(order_header::ENDED),
            MOVE_LISTING,
            STOCK_BACK,
            RELEASE_PLACE,
            GetSecret("PaymentApiKeySecret"),
        ],
    ),
    function(
        "list-refunds",
        &[QueryIndex(Index::Gsi1, IndexPartitions::Refunds)],
    ),
    function(
        "pay-refunds",
        &[
            QueryIndex(Index::Gsi1, IndexPartitions::Refunds),
            UpdateItem(&[&refund::CLAIM]),
            UpdateItem(&[&refund_due::CLAIM]),
            UpdateItem(&[&refund::SETTLE]),
            UpdateItem(&[&refund_due::SETTLE]),
            UpdateItem(&[&order_header::REFUND]),
            UpdateItem(&[&line_item::BACK]),
            GetSecret("PaymentApiKeySecret"),
        ],
    ),
    function(
        "refund-order",
        &[
            Query(Entity::OrderHeader),
            // The balance; units that were to ship: the lines version, the status, what the
            // customer no longer keeps.
            UpdateItem(order_header::GIVE_BACK),
            UpdateItem(order_listing::GIVE_BACK),
            UpdateItem(&[&line_item::BACK]),
            STOCK_BACK,
            RELEASE_PLACE,
            PutItem(&refund::PUT),
        ],
    ),
    function("get-order", &[Query(Entity::OrderHeader)]),
    function(
        "update-order-status",
        &[
            Query(Entity::OrderHeader),
            MOVE_HEADER,
            MOVE_LISTING,
            STOCK_BACK,
            RELEASE_PLACE,
            UpdateItem(order_header::CANCELLED_PAID),
            UpdateItem(&[&line_item::BACK]),
            PutItem(&refund::PUT),
            // SHIPPED: a fulfilment of everything left; DELIVERED: each one delivered.
            PutItem(&fulfilment::PUT),
            UpdateItem(&[&fulfilment::UPDATE]),
            UpdateItem(order_header::LINES_MOVE_STATUS),
        ],
    ),
    function(
        "cancel-lines",
        &[
            Query(Entity::OrderHeader),
            PutItem(&cancellation::PUT),
            PutItem(&refund::PUT),
            // The balance, the lines version, the status, what the customer no longer keeps.
            UpdateItem(order_header::GIVE_BACK),
            UpdateItem(order_listing::GIVE_BACK),
            UpdateItem(&[&line_item::BACK]),
            STOCK_BACK,
            RELEASE_PLACE,
        ],
    ),
    function(
        "ship-order",
        &[
            Query(Entity::OrderHeader),
            PutItem(&fulfilment::PUT),
            // The lines' version, and the status when it follows.
            UpdateItem(order_header::LINES_MOVE_STATUS),
            MOVE_LISTING,
            RELEASE_PLACE,
        ],
    ),
    function(
        "update-fulfilment",
        &[
            Query(Entity::OrderHeader),
            UpdateItem(&[&fulfilment::UPDATE]),
            // A delivery: the lines' version, and the status when it follows.
            UpdateItem(order_header::LINES_MOVE_STATUS),
            MOVE_LISTING,
        ],
    ),
    function(
        "request-return",
        &[
            Query(Entity::OrderHeader),
            PutItem(&order_return::PUT),
            // The lines' version: two returns of the last units never both count.
            UpdateItem(&[&order_header::LINES_CHANGE]),
        ],
    ),
    function(
        "update-return",
        &[
            Query(Entity::OrderHeader),
            UpdateItem(&[&order_return::MOVE]),
        ],
    ),
    function(
        "receive-return",
        &[
            Query(Entity::OrderHeader),
            UpdateItem(&[&order_return::MOVE]),
            PutItem(&refund::PUT),
            // The balance, what the customer no longer keeps.
            UpdateItem(order_header::GIVE_BACK),
            UpdateItem(order_listing::GIVE_BACK),
            UpdateItem(&[&line_item::BACK]),
            STOCK_BACK,
        ],
    ),
    function(
        "list-returns",
        &[QueryIndex(Index::Gsi1, IndexPartitions::Returns)],
    ),
    function("get-order-items", &[Query(Entity::LineItem)]),
    function(
        "list-orders-by-status",
        &[QueryIndex(Index::Gsi1, IndexPartitions::AnyStatus)],
    ),
    function(
        "order-stats",
        &[
            ReadStream,
            UpdateItem(&[&customer::STATS_UPDATE]),
            PutItem(&counted_order::PUT),
            Query(Entity::CountedOrder),
            SendMessage("OrderStatsFailureQueue"),
            WriteLogs("OrderStatsLogGroup"),
        ],
    ),
    function(
        "publish-events",
        &[
            ReadStream,
            // An order placed: its lines, for the event.
            Query(Entity::LineItem),
            PutEvents("StoreEventBus"),
            // A record that cannot be published, with its reason.
            SendMessage("PublishEventsFailureQueue"),
            WriteLogs("PublishEventsLogGroup"),
        ],
    ),
    function(
        "email-customers",
        &[
            ReadQueue("CustomerEmailQueue"),
            PutItem(&customer_email::CLAIM),
            UpdateItem(&[&customer_email::FINISH]),
            DeleteItem(&customer_email::RELEASE),
            // A claim refused: how another delivery dealt with the email.
            GetItem(Entity::CustomerEmail),
            // Whom to write to: the customer's address; a refund's order's customer.
            GetItem(Entity::Customer),
            GetItem(Entity::OrderHeader),
            SendEmail,
            WriteLogs("EmailCustomersLogGroup"),
        ],
    ),
    function("get-product", &[GetItem(Entity::Product)]),
    function("list-products", &[Query(Entity::CatalogEntry)]),
    function(
        "put-product",
        &[
            GetItem(Entity::Product),
            UpdateItem(&[&product::REPLACE]),
            PutItem(&catalog_entry::PUT),
        ],
    ),
    function(
        "adjust-stock",
        &[
            UpdateItem(&[&product::STOCK_UPDATE]),
            GetItem(Entity::Product),
        ],
    ),
    function(
        "list-product-orders",
        &[QueryIndex(Index::Gsi2, IndexPartitions::AnyProduct)],
    ),
];

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
                used || **spec == line_item::GSI2_BACKFILL,
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
