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

// What some functions have in template.yaml beyond what is derived (their resource's name, binary,
// description, routes, policies and alarm): YAML fragments, each a property of the function as
// template.yaml writes it, in one place however many functions share it.

/// The payment provider's base URL and key (read from Secrets Manager once at init).
const PROVIDER_KEY: &str = r#"Environment:
  Variables:
    PAYMENT_API_BASE: !Ref PaymentApiBase
    PAYMENT_API_KEY_SECRET_ID: !Ref PaymentApiKeySecret
    # sam local invoke only (local/sam-env.json sets it); empty in a deployed stack.
    PAYMENT_API_KEY: """#;

/// checkout's time: DynamoDB's calls give up within 4 s, the provider's within ~6.3 s.
const CHECKOUT_TIMEOUT: &str =
    "# DynamoDB's calls give up within 4 s, the provider's within ~6.3 s (3 attempts of 2 s).
Timeout: 15";

/// The webhook's endpoint secret (read from Secrets Manager once at init).
const WEBHOOK_SECRET: &str = r#"Environment:
  Variables:
    PAYMENT_WEBHOOK_SECRET_ID: !Ref PaymentWebhookSecret
    # sam local invoke only (local/sam-env.json sets it); empty in a deployed stack.
    PAYMENT_WEBHOOK_SECRET: """#;

/// expire-holds' schedule.
const END_HOLDS_SCHEDULE: &str = "Events:
  EveryMinute:
    Type: Schedule
    Properties:
      Schedule: rate(1 minute)
      Description: End the holds whose time is up";

/// pay-refunds' schedule.
const PAY_REFUNDS_SCHEDULE: &str = "Events:
  EveryMinute:
    Type: Schedule
    Properties:
      Schedule: rate(1 minute)
      Description: Pay the refunds due";

/// A run every minute: it stops reading before its deadline
/// ([`crate::bootstrap::SCHEDULED_MARGIN`]), and a failed run is not retried (the next one
/// starts from the table).
const EVERY_MINUTE: &str = r#"# A run stops reading before its deadline (shared::bootstrap::SCHEDULED_MARGIN).
Timeout: 55
EventInvokeConfig:
  MaximumRetryAttempts: 0"#;

/// How both stream consumers take the table's stream: from its oldest record, 100 at a time, a
/// batch's failures reported by position, bisected and retried, then given up to the consumer's
/// failure queue (`DestinationConfig`, beside this in each consumer's event).
macro_rules! stream_batches {
    () => {
        "      StartingPosition: TRIM_HORIZON
      BatchSize: 100
      FunctionResponseTypes:
        - ReportBatchItemFailures
      BisectBatchOnFunctionError: true
      MaximumRetryAttempts: 10
      # The stream keeps records 24 h; older ones could not be read anyway.
      MaximumRecordAgeInSeconds: 86400"
    };
}

/// order-stats' trigger: the order listings' changes.
const ORDER_LISTINGS_STREAM: &str = concat!(
    r#"Events:
  Stream:
    Type: DynamoDB
    Properties:
      Stream: !GetAtt AppTable.StreamArn
      MaximumBatchingWindowInSeconds: 1
      DestinationConfig:
        OnFailure:
          Type: SQS
          Destination: !GetAtt OrderStatsFailureQueue.Arn
      # Order listings only (SK ORDER#…): never the profile or the shares this function
      # writes, headers, line items or idempotency records, so it cannot trigger itself.
      # Removals too: a deleted order leaves the statistics.
      FilterCriteria:
        Filters:
          - Pattern: '{"eventName": ["INSERT", "MODIFY", "REMOVE"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "ORDER#"}]}}}}'
"#,
    stream_batches!()
);

/// publish-events' trigger: the changes the store publishes.
const EVENTFUL_STREAM: &str = concat!(
    r#"Events:
  Stream:
    Type: DynamoDB
    Properties:
      Stream: !GetAtt AppTable.StreamArn
      DestinationConfig:
        OnFailure:
          Type: SQS
          Destination: !GetAtt PublishEventsFailureQueue.Arn
      # Order headers, refunds and products only (shared::dynamo::events::EVENTFUL):
      # never the listings, lines or anything this function could trigger itself with.
      FilterCriteria:
        Filters:
          - Pattern: '{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": ["HEADER", "PRODUCT", "REFUND", {"prefix": "REFUND#"}, {"prefix": "FULFILMENT#"}, {"prefix": "CANCELLATION#"}, {"prefix": "RETURN#"}]}}}}'
"#,
    stream_batches!()
);

/// publish-events' bus, low-stock threshold and failure queue.
const PUBLISHER: &str = r#"# A batch resends what the bus did not take while it has time (SCHEDULED_MARGIN short of this).
Timeout: 60
Environment:
  Variables:
    EVENT_BUS_NAME: !Ref StoreEventBus
    LOW_STOCK_THRESHOLD: !Ref LowStockThreshold
    FAILURE_QUEUE_URL: !Ref PublishEventsFailureQueue
    AWS_ENDPOINT_URL_EVENTBRIDGE: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]
    AWS_ENDPOINT_URL_SQS: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]"#;

/// email-customers' sender, and its trigger: the email queue on the store's bus.
const MAILER: &str = r#"Timeout: 15
Environment:
  Variables:
    EMAIL_SENDER: !Ref EmailSender
    AWS_ENDPOINT_URL_SESV2: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]
Events:
  Queue:
    Type: SQS
    Properties:
      Queue: !GetAtt CustomerEmailQueue.Arn
      BatchSize: 10
      FunctionResponseTypes:
        - ReportBatchItemFailures"#;

/// Every Lambda of the template, and what it sends.
pub const FUNCTIONS: &[Function] = &[
    function(
        "get-customer",
        "Access pattern 1: a customer's profile (GetItem)",
        &[GetItem(Entity::Customer)]),
    function(
        "put-customer",
        "Creates or replaces a customer's profile (UpdateItem)",
        &[UpdateItem(&[&customer::PROFILE_UPDATE])]),
    function(
        "list-customer-orders",
        "Access pattern 2: a customer's orders, newest first (Query)",
        &[Query(Entity::OrderListing)]),
    function(
        "place-order",
        "Places an order in one TransactWriteItems, idempotently by Idempotency-Key",
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
    function(
        "get-cart",
        "Access pattern 9: a customer's cart (Query)",
        &[Query(Entity::CartLine)]),
    function(
        "edit-cart",
        "A customer's cart edited: a line held or removed, the cart emptied",
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
        "A customer's cart checked out: an order holding its stock while they pay (one transaction), and its PaymentIntent asked of the provider",
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
    )
    .deployed_with(&[CHECKOUT_TIMEOUT, PROVIDER_KEY]),
    function(
        "payment-webhook",
        "The payment provider's signed webhook: a hold paid (PENDING_PAYMENT to PLACED), or the payment recorded for refund",
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
    )
    .deployed_with(&[WEBHOOK_SECRET]),
    function(
        "expire-holds",
        "Holds ended on time: PENDING_PAYMENT orders past holdUntil become EXPIRED, their stock back, their PaymentIntents canceled (every minute)",
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
    )
    .deployed_with(&[PROVIDER_KEY, EVERY_MINUTE, END_HOLDS_SCHEDULE]),
    function(
        "list-refunds",
        "Access pattern 10: refunds in a status, oldest first (Query on GSI1)",
        &[QueryIndex(Index::Gsi1, IndexPartitions::Refunds)],
    ),
    function(
        "pay-refunds",
        "Refunds paid: each REQUESTED refund sent to the provider once, each PENDING one brought to where the provider has it (every minute)",
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
    )
    .deployed_with(&[PROVIDER_KEY, EVERY_MINUTE, PAY_REFUNDS_SCHEDULE]),
    function(
        "refund-order",
        "Staff refund part of a paid order: the refund recorded, drawn on the order's balance, its lines' stock back (one transaction)",
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
    function(
        "get-order",
        "An order's header and line items, and its ledger (one Query on its partition)",
        &[Query(Entity::OrderHeader)]),
    function(
        "update-order-status",
        "Moves an order's status, header and listing in one TransactWriteItems",
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
        "Staff cancel unshipped lines: the cancellation, the lines' counts, their stock back, a paid order's refund, the status as the lines make it (one transaction)",
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
        "Staff ship some of an order's lines in a fulfilment with its tracking: the fulfilment, the lines version and the status as the lines make it (one transaction)",
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
        "Staff move a fulfilment on or correct its tracking; a delivery moves the order's lines version and status with it (one transaction)",
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
        "The order's customer asks to return delivered units within ReturnWindowDays: the return and the order's lines version (one transaction)",
        &[
            Query(Entity::OrderHeader),
            PutItem(&order_return::PUT),
            // The lines' version: two returns of the last units never both count.
            UpdateItem(&[&order_header::LINES_CHANGE]),
        ],
    ),
    function(
        "update-return",
        "Staff approve or decline a return; its customer cancels it before it is received",
        &[
            Query(Entity::OrderHeader),
            UpdateItem(&[&order_return::MOVE]),
        ],
    ),
    function(
        "receive-return",
        "Staff record what arrived of a return: the return, the lines' counts, undamaged units' stock back, what arrived refunded (one transaction)",
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
        "Access pattern 11: returns in a status, oldest first (Query on GSI1)",
        &[QueryIndex(Index::Gsi1, IndexPartitions::Returns)],
    ),
    function(
        "get-order-items",
        "Access pattern 3: an order's line items (Query)",
        &[Query(Entity::LineItem)]),
    function(
        "list-orders-by-status",
        "Access pattern 4: orders with a status, oldest first (Query on GSI1)",
        &[QueryIndex(Index::Gsi1, IndexPartitions::AnyStatus)],
    ),
    function(
        "order-stats",
        "Keeps customers' orderCount, totalSpent and lastOrderAt from the table's stream",
        &[
            ReadStream,
            UpdateItem(&[&customer::STATS_UPDATE]),
            PutItem(&counted_order::PUT),
            Query(Entity::CountedOrder),
            SendMessage("OrderStatsFailureQueue"),
            WriteLogs("OrderStatsLogGroup"),
        ],
    )
    .deployed_with(&["Timeout: 30", ORDER_LISTINGS_STREAM]),
    function(
        "publish-events",
        "Publishes every committed change of an order, a refund or a product's stock to the store's bus",
        &[
            ReadStream,
            // An order placed: its lines, for the event.
            Query(Entity::LineItem),
            PutEvents("StoreEventBus"),
            // A record that cannot be published, with its reason.
            SendMessage("PublishEventsFailureQueue"),
            WriteLogs("PublishEventsLogGroup"),
        ],
    )
    .deployed_with(&[PUBLISHER, EVENTFUL_STREAM]),
    function(
        "email-customers",
        "Emails customers about their orders placed and shipped and their refunds paid, once per event",
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
    )
    .deployed_with(&[MAILER])
    .on_condition("SendsEmail"),
    function(
        "get-product",
        "A product, its price and stock (GetItem)",
        &[GetItem(Entity::Product)]),
    function(
        "list-products",
        "The catalog, one Query per page over its shards",
        &[Query(Entity::CatalogEntry)]),
    function(
        "put-product",
        "Creates or replaces a product and its catalog entry (staff)",
        &[
            GetItem(Entity::Product),
            UpdateItem(&[&product::REPLACE]),
            PutItem(&catalog_entry::PUT),
        ],
    ),
    function(
        "adjust-stock",
        "Adds to or takes from a product's stock, never below 0 (staff)",
        &[
            UpdateItem(&[&product::STOCK_UPDATE]),
            GetItem(Entity::Product),
        ],
    ),
    function(
        "list-product-orders",
        "Access pattern 8: the orders that contain a product, newest first (Query on GSI2)",
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
