//! Lambda entry point of quote-cart: its handler over the store.

functions::serve_http_with_store!(functions::quote_cart::handle);
