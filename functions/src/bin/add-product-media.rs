//! Lambda entry point of add-product-media: its handler over the store.

functions::serve_http_with_store!(functions::add_product_media::handle);
