//! The handlers' tests, one module per function: each drives its handler through the events
//! Lambda hands it (API Gateway's, the stream's, the queue's), over the real SDK and an
//! embedded engine the test owns, reaching any state through the other routes' own handlers.

mod adjust_stock;
mod cancel_lines;
mod checkout;
mod edit_cart;
mod email_customers;
mod expire_holds;
mod flows;
mod get_cart;
mod get_customer;
mod get_order;
mod get_order_items;
mod get_product;
mod get_variant;
mod list_category_products;
mod list_customer_orders;
mod list_orders_by_status;
mod list_product_orders;
mod list_products;
mod list_refunds;
mod list_returns;
mod order_stats;
mod pay_refunds;
mod payment_webhook;
mod place_order;
mod product_media;
mod promotions;
mod publish_events;
mod put_category;
mod put_customer;
mod put_product;
mod quote_cart;
mod receive_return;
mod refund_order;
mod request_return;
mod ship_order;
mod shipping_options;
mod tax_rates;
mod update_fulfilment;
mod update_order_status;
mod update_return;
