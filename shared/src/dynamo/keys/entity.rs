//! Every kind of item the store writes ([`Entity`]): its name as the explorer's legend shows
//! it, the shape of its keys (what the key tables of `keys.rs` and the README are tested
//! against), and which entity a pair of keys names.

use super::*;

crate::listed! {
    /// Every kind of item the store writes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Entity {
        /// A customer's profile.
        Customer,
        /// An order's listing in its customer's partition.
        OrderListing,
        /// An order's line item.
        LineItem,
        /// An order's header.
        OrderHeader,
        /// An order as the statistics counted it.
        CountedOrder,
        /// A customer's count of PLACED orders.
        OpenOrderCount,
        /// A product: its title, status, categories and options.
        Product,
        /// A variant of a product: one SKU, its price and stock.
        Variant,
        /// A part of a variant's stock beyond its own item's, with copies of its terms.
        StockShard,
        /// A product's entry in the catalog.
        CatalogEntry,
        /// A category of the storefront's tree.
        Category,
        /// The version of the category tree, moved on by each category written.
        CategoryTree,
        /// A published product's place in one of its categories' listings.
        CategoryListing,
        /// A product's picture: an upload awaited, then a picture it shows.
        ProductMedia,
        /// A way to ship: where to, and its rate.
        ShippingOption,
        /// A country's tax: its rate, its regions' own, whether shipping is taxed.
        TaxRate,
        /// A promotion: what it takes off, when, how often.
        Promotion,
        /// A code's claim: the one promotion it names.
        PromotionCode,
        /// How often a promotion was used: in all, and by one customer.
        PromotionUses,
        /// What an `Idempotency-Key` remembers.
        IdempotencyRecord,
        /// A data migration's state.
        MigrationState,
        /// A line of a customer's cart.
        CartLine,
        /// The version of a customer's cart, moved on by each line added.
        CartVersion,
        /// A provider event the webhook applied.
        PaymentEvent,
        /// The order a collected payment placed.
        PaymentOrder,
        /// A payment to give back that names no order the store has.
        RefundDue,
        /// A refund of an order: staff's, a cancellation's, or of a payment for it that placed
        /// nothing.
        OrderRefund,
        /// A signed provider event the store could not read, kept for a person to look at.
        UnreadEvent,
        /// One event's email to its customer: claimed, then sent once.
        CustomerEmail,
        /// One shipment of some of an order's lines, with its tracking.
        Fulfilment,
        /// Unshipped lines of an order cancelled at once.
        Cancellation,
        /// A customer's return of delivered units of an order.
        OrderReturn,
    }
}

impl Entity {
    /// The entity's name, as the explorer's legend shows it.
    pub fn name(self) -> &'static str {
        match self {
            Entity::Customer => "Customer",
            Entity::OrderListing => "Order listing",
            Entity::LineItem => "Line item",
            Entity::OrderHeader => "Order header",
            Entity::CountedOrder => "Order as counted",
            Entity::OpenOrderCount => "Open-order count",
            Entity::Product => "Product",
            Entity::Variant => "Variant",
            Entity::StockShard => "Stock shard",
            Entity::CatalogEntry => "Catalog entry",
            Entity::Category => "Category",
            Entity::CategoryTree => "Category tree",
            Entity::CategoryListing => "Category listing",
            Entity::ProductMedia => "Product picture",
            Entity::ShippingOption => "Shipping option",
            Entity::TaxRate => "Tax rate",
            Entity::Promotion => "Promotion",
            Entity::PromotionCode => "Promotion code",
            Entity::PromotionUses => "Promotion uses",
            Entity::IdempotencyRecord => "Idempotency record",
            Entity::MigrationState => "Migration state",
            Entity::CartLine => "Cart line",
            Entity::CartVersion => "Cart version",
            Entity::PaymentEvent => "Applied payment event",
            Entity::PaymentOrder => "Payment's order",
            Entity::RefundDue => "Refund due",
            Entity::OrderRefund => "Order refund",
            Entity::UnreadEvent => "Unread provider event",
            Entity::CustomerEmail => "Customer email",
            Entity::Fulfilment => "Fulfilment",
            Entity::Cancellation => "Cancellation",
            Entity::OrderReturn => "Order return",
        }
    }

    /// The shape of its keys, `PK` then `SK`: the legend of `make dev`'s explorer, and what
    /// the key tables of this file and the README are tested against.
    pub fn keys(self) -> (&'static str, &'static str) {
        match self {
            Entity::Customer => ("CUSTOMER#<customerId>", PROFILE_SK),
            Entity::OrderListing => ("CUSTOMER#<customerId>", "ORDER#<placedAt>#<orderId>"),
            Entity::LineItem => ("ORDER#<orderId>", "ITEM#<sku>"),
            Entity::OrderHeader => ("ORDER#<orderId>", HEADER_SK),
            Entity::CountedOrder => ("CUSTOMER#<customerId>", "COUNTED#<orderId>"),
            Entity::OpenOrderCount => ("CUSTOMER#<customerId>", PLACED_ORDERS_SK),
            Entity::Product => ("PRODUCT#<productId>", DETAILS_SK),
            Entity::Variant => ("PRODUCT#<sku>", PRODUCT_SK),
            Entity::StockShard => ("STOCK#<sku>#<n>", STOCK_SK),
            Entity::CatalogEntry => ("CATALOG#<shard>", "PRODUCT#<productId>"),
            Entity::Category => (CATEGORIES_PK, "CATEGORY#<categoryId>"),
            Entity::CategoryTree => (CATEGORIES_PK, TREE_VERSION_SK),
            Entity::CategoryListing => ("PRODUCT#<productId>", "LISTED#<categoryId>#<order>"),
            Entity::ProductMedia => ("PRODUCT#<productId>", "MEDIA#<mediaId>"),
            Entity::ShippingOption => (SHIPPING_PK, "OPTION#<optionId>"),
            Entity::TaxRate => (TAX_PK, "COUNTRY#<country>"),
            Entity::Promotion => (PROMOTIONS_PK, "PROMOTION#<promotionId>"),
            Entity::PromotionCode => (PROMOTIONS_PK, "CODE#<code>"),
            Entity::PromotionUses => ("PROMOTION#<promotionId>", "USES, USES#<customerId>"),
            Entity::IdempotencyRecord => ("IDEMPOTENCY#<customerId>#<key>", RESPONSE_SK),
            Entity::CartLine => ("CUSTOMER#<customerId>", "CART#<sku>"),
            Entity::CartVersion => ("CUSTOMER#<customerId>", CART_VERSION_SK),
            Entity::PaymentEvent => ("PAYMENT_EVENT#<eventId>", APPLIED_SK),
            Entity::PaymentOrder => ("PAYMENT#<paymentId>", PAYMENT_ORDER_SK),
            Entity::RefundDue => ("REFUND#<paymentId>", REFUND_SK),
            Entity::OrderRefund => ("ORDER#<orderId>", "REFUND#<refundId>"),
            Entity::UnreadEvent => ("UNREAD_EVENT#<sha256>", RAW_SK),
            Entity::CustomerEmail => ("EMAIL#<eventId>", EMAIL_SK),
            Entity::Fulfilment => ("ORDER#<orderId>", "FULFILMENT#<fulfilmentId>"),
            Entity::Cancellation => ("ORDER#<orderId>", "CANCELLATION#<cancellationId>"),
            Entity::OrderReturn => ("ORDER#<orderId>", "RETURN#<returnId>"),
            Entity::MigrationState => (
                "MIGRATION#<name>",
                "STATUS, SEGMENT#<total>#<i>, DEFERRED#<orderId>#<sku>, UNPLACEABLE#<PK>#<SK>",
            ),
        }
    }

    /// One of the three entities of the design this store implements.
    pub fn from_source_design(self) -> bool {
        matches!(
            self,
            Entity::Customer | Entity::OrderListing | Entity::LineItem
        )
    }

    /// The entity whose keys these are; `None` for keys the store does not write.
    pub fn of(pk: &str, sk: &str) -> Option<Entity> {
        let under = |prefix: &str| pk.strip_prefix(prefix).is_some_and(|rest| !rest.is_empty());
        if under(CUSTOMER_PREFIX) {
            CUSTOMER_PARTITION.entity_of(sk)
        } else if under(ORDER_PREFIX) {
            ORDER_PARTITION.entity_of(sk)
        } else if under(PRODUCT_PREFIX) && sk == PRODUCT_SK {
            Some(Entity::Variant)
        } else if under(PRODUCT_PREFIX) && sk == DETAILS_SK {
            Some(Entity::Product)
        } else if under(PRODUCT_PREFIX) && SortKeys::Prefixed(LISTED_PREFIX).holds(sk) {
            Some(Entity::CategoryListing)
        } else if under(PRODUCT_PREFIX) && SortKeys::Prefixed(MEDIA_PREFIX).holds(sk) {
            Some(Entity::ProductMedia)
        } else if under(STOCK_PREFIX) && sk == STOCK_SK {
            Some(Entity::StockShard)
        } else if pk == CATEGORIES_PK && SortKeys::Prefixed(CATEGORY_PREFIX).holds(sk) {
            Some(Entity::Category)
        } else if pk == TAX_PK && SortKeys::Prefixed(COUNTRY_PREFIX).holds(sk) {
            Some(Entity::TaxRate)
        } else if pk == SHIPPING_PK && SortKeys::Prefixed(OPTION_PREFIX).holds(sk) {
            Some(Entity::ShippingOption)
        } else if pk == PROMOTIONS_PK && SortKeys::Prefixed(PROMOTION_PREFIX).holds(sk) {
            Some(Entity::Promotion)
        } else if pk == PROMOTIONS_PK && SortKeys::Prefixed(CODE_PREFIX).holds(sk) {
            Some(Entity::PromotionCode)
        } else if under(PROMOTION_PREFIX)
            && (sk == USES_SK || sk.strip_prefix(USES_SK).is_some_and(|r| r.starts_with('#')))
        {
            Some(Entity::PromotionUses)
        } else if pk == CATEGORIES_PK && sk == TREE_VERSION_SK {
            Some(Entity::CategoryTree)
        } else if under(CATALOG_PREFIX) && SortKeys::Prefixed(PRODUCT_PREFIX).holds(sk) {
            Some(Entity::CatalogEntry)
        } else if under(IDEMPOTENCY_PREFIX) && sk == RESPONSE_SK {
            Some(Entity::IdempotencyRecord)
        } else if under(PAYMENT_EVENT_PREFIX) && sk == APPLIED_SK {
            Some(Entity::PaymentEvent)
        } else if under(PAYMENT_PREFIX) && sk == PAYMENT_ORDER_SK {
            Some(Entity::PaymentOrder)
        } else if under(REFUND_PREFIX) && sk == REFUND_SK {
            Some(Entity::RefundDue)
        } else if under(UNREAD_EVENT_PREFIX) && sk == RAW_SK {
            Some(Entity::UnreadEvent)
        } else if under(EMAIL_PREFIX) && sk == EMAIL_SK {
            Some(Entity::CustomerEmail)
        } else if under(MIGRATION_PREFIX) {
            Some(Entity::MigrationState)
        } else {
            None
        }
    }
}
