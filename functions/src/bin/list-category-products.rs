//! Lambda entry point of list-category-products: its handler over the store.

functions::serve_http_with_store!(functions::list_category_products::handle);
