//! Every Lambda of the template, and what it sends: one line each ([`super::Function`]).

use super::groups::{
    COUNT_USE, COVER_IN_CATALOG, COVER_IN_LISTINGS, INPUT_CUSTOMER, INPUT_IDEMPOTENCY,
    INPUT_PRODUCTS, INPUT_SHARDS, MOVE_HEADER, MOVE_LISTING, PICTURE_SUMMARY, READ_PICTURES,
    RELEASE_PLACE, STOCK_BACK,
};
use super::template::{
    CHECKOUT_TIMEOUT, END_HOLDS_SCHEDULE, EVENTFUL_STREAM, EVERY_MINUTE, MAILER, MEDIA_ARRIVALS,
    MEDIA_BUCKET, ORDER_LISTINGS_STREAM, PAY_REFUNDS_SCHEDULE, PROVIDER_KEY, PUBLISHER,
    WEBHOOK_SECRET,
};
use super::{Function, IndexPartitions, Sends, function, pricing};
use crate::domain::status::OrderStatus;
use crate::dynamo::entities::{
    cancellation, cart_line, cart_version, catalog_entry, category, category_listing,
    category_tree, counted_order, customer, customer_email, fulfilment, idempotency, line_item,
    open_order_count, order_header, order_listing, order_return, payment_event, payment_order,
    product, product_media, refund, refund_due, stock_shard, unread_event, variant,
};
use crate::dynamo::keys::Entity;
use crate::dynamo::query::Index;

use Sends::{
    BatchGetItem, DeleteItem, DeleteObjects, GetItem, GetSecret, PutEvents, PutItem, Query,
    QueryIndex, ReadObjects, ReadQueue, ReadStream, SendEmail, SendMessage, UpdateItem,
    UploadObjects, WriteLogs,
};

/// Every Lambda of the template, and what it sends.
pub const FUNCTIONS: &[Function] = &[
    function(
        "get-customer",
        "Access pattern 1: a customer's profile (GetItem)",
        &[GetItem(Entity::Customer)]),
    function(
        "put-customer",
        "Creates or replaces a customer's profile (UpdateItem), then marks the cart's version: the customer is one",
        &[
            UpdateItem(&[&customer::PROFILE_UPDATE]),
            UpdateItem(&[&cart_version::MARK_PROFILED]),
        ],
    ),
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
            INPUT_SHARDS,
            INPUT_IDEMPOTENCY,
            UpdateItem(&[&variant::TAKE_STOCK]),
            UpdateItem(&[&stock_shard::TAKE]),
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
            GetItem(Entity::Variant),
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
            INPUT_SHARDS,
            INPUT_IDEMPOTENCY,
            // The cart priced as a quote prices it: the promotions, the way to ship and the
            // tax where it goes, the products' categories where a promotion names some.
            Query(Entity::Promotion),
            BatchGetItem(Entity::ShippingOption),
            BatchGetItem(Entity::TaxRate),
            BatchGetItem(Entity::Product),
            BatchGetItem(Entity::PromotionUses),
            COUNT_USE,
            // The customer's count: whether it has its map of held units yet.
            BatchGetItem(Entity::OpenOrderCount),
            UpdateItem(&[&variant::TAKE_STOCK]),
            UpdateItem(&[&stock_shard::TAKE]),
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
            COUNT_USE,
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
            COUNT_USE,
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
        "Access pattern 12: a product with its variants and pictures (Query on GSI3)",
        &[
            QueryIndex(Index::Gsi3, IndexPartitions::Products),
            READ_PICTURES,
            // A variant's stock over its shards, where it has more than one.
            BatchGetItem(Entity::StockShard),
        ],
    )
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "get-variant",
        "Access pattern 5: a variant, its price and stock (GetItem; its stock shards, where it has more than one, by BatchGetItem)",
        &[GetItem(Entity::Variant), BatchGetItem(Entity::StockShard)]),
    function(
        "list-products",
        "The catalog, one Query per page over its shards",
        &[Query(Entity::CatalogEntry), READ_PICTURES])
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "put-product",
        "Creates or replaces a product with its variants and its catalog entry, in one transaction (staff)",
        &[
            GetItem(Entity::Product),
            PutItem(&product::PUT),
            UpdateItem(&[&variant::WRITE]),
            UpdateItem(&[&variant::RETIRE]),
            // The variants' terms copied to their stock shards; the variants read back whole.
            UpdateItem(&[&stock_shard::TERMS]),
            BatchGetItem(Entity::StockShard),
            PutItem(&catalog_entry::PUT),
            DeleteItem(&catalog_entry::REMOVE),
            // The variants read back for the answer, with their stock.
            BatchGetItem(Entity::Variant),
            // Its categories, each to exist; its listings in them.
            BatchGetItem(Entity::Category),
            PutItem(&category_listing::PUT),
            DeleteItem(&category_listing::REMOVE),
            // Its pictures, for the answer.
            Query(Entity::ProductMedia),
            READ_PICTURES,
        ],
    )
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "add-product-media",
        "Starts an upload of a product's picture: a form signed for the media bucket (staff)",
        &[
            GetItem(Entity::Product),
            PutItem(&product_media::START),
            // The form is signed under this grant: S3 checks the signer may put the object.
            UploadObjects("MediaBucket"),
        ],
    )
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "remove-product-media",
        "Removes a product's picture: its object, then its item and the copies of it (staff)",
        &[
            GetItem(Entity::ProductMedia),
            GetItem(Entity::Product),
            Query(Entity::ProductMedia),
            DeleteObjects("MediaBucket"),
            DeleteItem(&product_media::DISCARD),
            PICTURE_SUMMARY,
            COVER_IN_CATALOG,
            COVER_IN_LISTINGS,
        ],
    )
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "check-media",
        "Checks each picture that arrives in the media bucket, and shows it or deletes it",
        &[
            ReadQueue("MediaArrivalQueue"),
            ReadObjects("MediaBucket"),
            DeleteObjects("MediaBucket"),
            GetItem(Entity::ProductMedia),
            GetItem(Entity::Product),
            UpdateItem(&[&product_media::SHOW]),
            DeleteItem(&product_media::DISCARD),
            PICTURE_SUMMARY,
            COVER_IN_CATALOG,
            COVER_IN_LISTINGS,
        ],
    )
    .deployed_with(&[MEDIA_BUCKET, MEDIA_ARRIVALS]),
    pricing::PUT_SHIPPING_OPTION,
    pricing::LIST_SHIPPING_OPTIONS,
    pricing::PUT_TAX_RATE,
    pricing::GET_TAX_RATE,
    pricing::PUT_PROMOTION,
    pricing::QUOTE_CART,
    function(
        "put-category",
        "Creates, renames or moves a category of the tree, on the tree's version (staff)",
        &[
            Query(Entity::Category),
            PutItem(&category::PUT),
            UpdateItem(&[&category_tree::MOVE_ON]),
        ],
    ),
    function(
        "list-categories",
        "Access pattern 13: the category tree (Query)",
        &[Query(Entity::Category)]),
    function(
        "list-category-products",
        "Access pattern 14: a category's published products by price or newest (Query on GSI3)",
        &[QueryIndex(Index::Gsi3, IndexPartitions::Categories), READ_PICTURES],
    )
    .deployed_with(&[MEDIA_BUCKET]),
    function(
        "adjust-stock",
        "Adds to or takes from a variant's stock, never below 0, and splits it over stock shards (staff)",
        &[
            UpdateItem(&[&variant::STOCK_UPDATE]),
            GetItem(Entity::Variant),
            // Its stock shards: read, their units moved, a dropped one deleted.
            BatchGetItem(Entity::StockShard),
            UpdateItem(&[&variant::SPREAD]),
            UpdateItem(&[&stock_shard::SPREAD]),
            DeleteItem(&stock_shard::DROP),
            // Stock taken away from the fullest shards.
            UpdateItem(&[&stock_shard::TAKE]),
        ],
    ),
    function(
        "list-product-orders",
        "Access pattern 8: the orders that contain a variant, newest first (Query on GSI2)",
        &[
            QueryIndex(Index::Gsi2, IndexPartitions::AnyProduct),
            // How many GSI2 partitions its lines are spread over.
            GetItem(Entity::Variant),
        ],
    ),
];
