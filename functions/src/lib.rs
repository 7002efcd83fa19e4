//! Every Lambda's handler, a module each; `src/bin/<name>.rs` is the function's binary (its
//! wiring only). A handler takes its dependencies as arguments, so tests, make dev and the bench
//! call it as Lambda does. Which route a handler serves and who may call it is
//! `shared::http::routes`; what it may send to the table is `shared::permissions`.

pub mod add_product_media;
pub mod adjust_stock;
pub mod cancel_lines;
pub mod check_media;
pub mod checkout;
pub mod edit_cart;
pub mod email_customers;
pub mod expire_holds;
pub mod get_cart;
pub mod get_customer;
pub mod get_order;
pub mod get_order_items;
pub mod get_product;
pub mod get_tax_rate;
pub mod get_variant;
pub mod list_categories;
pub mod list_category_products;
pub mod list_customer_orders;
pub mod list_orders_by_status;
pub mod list_product_orders;
pub mod list_products;
pub mod list_refunds;
pub mod list_returns;
pub mod list_shipping_options;
pub mod order_stats;
pub mod pay_refunds;
pub mod payment_webhook;
pub mod place_order;
pub mod publish_events;
pub mod put_category;
pub mod put_customer;
pub mod put_product;
pub mod put_promotion;
pub mod put_shipping_option;
pub mod put_tax_rate;
pub mod quote_cart;
pub mod receive_return;
pub mod refund_order;
pub mod remove_product_media;
pub mod request_return;
pub mod ship_order;
pub mod update_fulfilment;
pub mod update_order_status;
pub mod update_return;

/// Calls macro `$then` with every binary whose handler answers an HTTP request over the store
/// alone (`"get-order" => functions::get_order::handle, ...`): make dev dispatches through it.
/// A new route of that kind is its module above and its line here.
#[macro_export]
macro_rules! http_over_the_store {
    ($then:ident) => {
        $then! {
            "get-customer" => $crate::get_customer::handle,
            "list-customer-orders" => $crate::list_customer_orders::handle,
            "get-order-items" => $crate::get_order_items::handle,
            "list-orders-by-status" => $crate::list_orders_by_status::handle,
            "put-customer" => $crate::put_customer::handle,
            "place-order" => $crate::place_order::handle,
            "get-order" => $crate::get_order::handle,
            "update-order-status" => $crate::update_order_status::handle,
            "get-product" => $crate::get_product::handle,
            "get-variant" => $crate::get_variant::handle,
            "put-category" => $crate::put_category::handle,
            "list-categories" => $crate::list_categories::handle,
            "list-category-products" => $crate::list_category_products::handle,
            "list-products" => $crate::list_products::handle,
            "put-product" => $crate::put_product::handle,
            "add-product-media" => $crate::add_product_media::handle,
            "remove-product-media" => $crate::remove_product_media::handle,
            "adjust-stock" => $crate::adjust_stock::handle,
            "list-product-orders" => $crate::list_product_orders::handle,
            "get-cart" => $crate::get_cart::handle,
            "edit-cart" => $crate::edit_cart::handle,
            "list-refunds" => $crate::list_refunds::handle,
            "refund-order" => $crate::refund_order::handle,
            "ship-order" => $crate::ship_order::handle,
            "cancel-lines" => $crate::cancel_lines::handle,
            "update-fulfilment" => $crate::update_fulfilment::handle,
            "request-return" => $crate::request_return::handle,
            "update-return" => $crate::update_return::handle,
            "receive-return" => $crate::receive_return::handle,
            "list-returns" => $crate::list_returns::handle,
            "put-shipping-option" => $crate::put_shipping_option::handle,
            "list-shipping-options" => $crate::list_shipping_options::handle,
            "put-tax-rate" => $crate::put_tax_rate::handle,
            "get-tax-rate" => $crate::get_tax_rate::handle,
            "put-promotion" => $crate::put_promotion::handle,
            "quote-cart" => $crate::quote_cart::handle,
        }
    };
}

/// The whole `main` of a function whose handler needs only the store (most routes): the store
/// built once per cold start, then every invocation served on one current-thread runtime.
#[macro_export]
macro_rules! serve_http_with_store {
    ($handler:path) => {
        #[tokio::main(flavor = "current_thread")]
        async fn main() -> Result<(), shared::domain::error::BoxError> {
            let store = shared::bootstrap::init().await?;
            shared::bootstrap::serve_http(&store, $handler).await
        }
    };
}
