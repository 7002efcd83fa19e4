//! Lambda entry point of remove-product-media: its handler over the store.

functions::serve_http_with_store!(functions::remove_product_media::handle);
