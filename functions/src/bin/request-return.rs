//! Lambda entry point of request-return: its handler over the store.

functions::serve_http_with_store!(functions::request_return::handle);
