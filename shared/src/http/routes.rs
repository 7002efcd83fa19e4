//! Who may call each route, in one table that dispatch enforces before any handler runs: a
//! handler never checks its caller's right to the route, so none can forget to. A route the
//! table does not declare is refused whole. Tests hold the table to template.yaml's routes and
//! try every route with every kind of caller (`local/dev/tests/api/routes.rs`).

use lambda_http::{Request, RequestExt};

use crate::AppError;
use crate::domain::access::Caller;
use crate::domain::ids::CustomerId;

crate::listed! {
    /// Which callers a route admits, beyond being signed in (API Gateway's JWT authorizer, or
    /// `make dev`'s, admits no request without a valid token; the function refuses one without
    /// claims all the same).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Admits {
        /// Any signed-in caller: the catalog.
        AnyCaller,
        /// Anyone, with or without a token: the storefront's catalog reads (the route has no
        /// JWT authorizer, so a token sent is not read: every caller sees what customers see).
        Anyone,
        /// The customer the path's `customerId` names, and staff; anyone else is a 403.
        PathCustomer,
        /// The owner of the order the path's `orderId` names, and staff. Only the order says
        /// who owns it, so the store's read takes the caller and answers "no such order" to
        /// anyone else (a 404: an order's existence is not told to other customers).
        OrderOwner,
        /// Staff: the `staff` group, or a known machine client with the admin scope; anyone
        /// else is a 403.
        Staff,
        /// No signed-in caller: the payment provider, whose signature over the body is its
        /// authentication (the route has no JWT authorizer; its handler checks the signature
        /// before it reads anything, `shared::http::signature`).
        ProviderSignature,
    }
}

/// One route: API Gateway's route key, the Cargo binary that serves it, and who may call it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// API Gateway's route key: `GET /customers/{customerId}`.
    pub key: &'static str,
    /// The Cargo binary that serves it (template.yaml's `Metadata.BuildProperties.Binary`).
    pub binary: &'static str,
    /// Who may call it.
    pub admits: Admits,
}

const fn route(key: &'static str, binary: &'static str, admits: Admits) -> Route {
    Route {
        key,
        binary,
        admits,
    }
}

/// Every route of the HTTP API. A new route cannot be served without a line here.
pub const ROUTES: &[Route] = &[
    route(
        "GET /customers/{customerId}",
        "get-customer",
        Admits::PathCustomer,
    ),
    route(
        "PUT /customers/{customerId}",
        "put-customer",
        Admits::PathCustomer,
    ),
    route(
        "GET /customers/{customerId}/orders",
        "list-customer-orders",
        Admits::PathCustomer,
    ),
    route(
        "POST /customers/{customerId}/orders",
        "place-order",
        Admits::Staff,
    ),
    route(
        "GET /customers/{customerId}/cart",
        "get-cart",
        Admits::PathCustomer,
    ),
    route(
        "PUT /customers/{customerId}/cart/items/{sku}",
        "edit-cart",
        Admits::PathCustomer,
    ),
    route(
        "DELETE /customers/{customerId}/cart/items/{sku}",
        "edit-cart",
        Admits::PathCustomer,
    ),
    route(
        "DELETE /customers/{customerId}/cart",
        "edit-cart",
        Admits::PathCustomer,
    ),
    route("GET /orders", "list-orders-by-status", Admits::Staff),
    route("GET /orders/{orderId}", "get-order", Admits::OrderOwner),
    route(
        "PATCH /orders/{orderId}",
        "update-order-status",
        Admits::OrderOwner,
    ),
    route(
        "GET /orders/{orderId}/items",
        "get-order-items",
        Admits::OrderOwner,
    ),
    route("GET /products", "list-products", Admits::AnyCaller),
    route(
        "GET /products/{productId}",
        "get-product",
        Admits::AnyCaller,
    ),
    route("PUT /products/{productId}", "put-product", Admits::Staff),
    route(
        "POST /products/{productId}/media",
        "add-product-media",
        Admits::Staff,
    ),
    route(
        "DELETE /products/{productId}/media/{mediaId}",
        "remove-product-media",
        Admits::Staff,
    ),
    route("GET /variants/{sku}", "get-variant", Admits::AnyCaller),
    route("GET /categories", "list-categories", Admits::AnyCaller),
    // The storefront: the catalog's reads for callers without a token, served by the same
    // functions as the signed-in routes above, as customers see them.
    route("GET /storefront/products", "list-products", Admits::Anyone),
    route(
        "GET /storefront/products/{productId}",
        "get-product",
        Admits::Anyone,
    ),
    route(
        "GET /storefront/variants/{sku}",
        "get-variant",
        Admits::Anyone,
    ),
    route(
        "GET /storefront/categories",
        "list-categories",
        Admits::Anyone,
    ),
    route(
        "GET /storefront/categories/{categoryId}/products",
        "list-category-products",
        Admits::Anyone,
    ),
    route(
        "PUT /categories/{categoryId}",
        "put-category",
        Admits::Staff,
    ),
    route(
        "GET /categories/{categoryId}/products",
        "list-category-products",
        Admits::AnyCaller,
    ),
    route(
        "GET /variants/{sku}/orders",
        "list-product-orders",
        Admits::Staff,
    ),
    route("POST /variants/{sku}/stock", "adjust-stock", Admits::Staff),
    route(
        "POST /customers/{customerId}/checkout",
        "checkout",
        Admits::PathCustomer,
    ),
    route(
        "POST /payments/webhook",
        "payment-webhook",
        Admits::ProviderSignature,
    ),
    route("GET /payments/refunds", "list-refunds", Admits::Staff),
    route(
        "GET /orders/{orderId}/payments",
        "get-order",
        Admits::OrderOwner,
    ),
    route(
        "POST /orders/{orderId}/refunds",
        "refund-order",
        Admits::Staff,
    ),
    route(
        "POST /orders/{orderId}/cancellations",
        "cancel-lines",
        Admits::Staff,
    ),
    route(
        "POST /orders/{orderId}/fulfilments",
        "ship-order",
        Admits::Staff,
    ),
    route(
        "PATCH /orders/{orderId}/fulfilments/{fulfilmentId}",
        "update-fulfilment",
        Admits::Staff,
    ),
    route(
        "POST /orders/{orderId}/returns",
        "request-return",
        Admits::OrderOwner,
    ),
    // Staff approve or decline; the owner cancels (the handler tells the moves apart: 403).
    route(
        "PATCH /orders/{orderId}/returns/{returnId}",
        "update-return",
        Admits::OrderOwner,
    ),
    route(
        "POST /orders/{orderId}/returns/{returnId}/receipt",
        "receive-return",
        Admits::Staff,
    ),
    route("GET /returns", "list-returns", Admits::Staff),
    route(
        "PUT /shipping-options/{optionId}",
        "put-shipping-option",
        Admits::Staff,
    ),
    route(
        "GET /shipping-options",
        "list-shipping-options",
        Admits::AnyCaller,
    ),
    route(
        "GET /storefront/shipping-options",
        "list-shipping-options",
        Admits::Anyone,
    ),
    route("PUT /tax-rates/{country}", "put-tax-rate", Admits::Staff),
    route("GET /tax-rates/{country}", "get-tax-rate", Admits::Staff),
    route(
        "PUT /promotions/{promotionId}",
        "put-promotion",
        Admits::Staff,
    ),
    route(
        "GET /customers/{customerId}/cart/quote",
        "quote-cart",
        Admits::PathCustomer,
    ),
];

/// The route a request came in on, as API Gateway names it (`routeKey`): an extension of the
/// request, set from the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteKey(pub String);

/// The declared route of `key`.
pub fn find(key: &str) -> Option<&'static Route> {
    ROUTES.iter().find(|route| route.key == key)
}

/// Whether `req`'s caller may call the route it came in on: 401 without a caller (whatever
/// the route: authentication comes first, as API Gateway's authorizer puts it first), then 403
/// for a caller the route does not admit or a route the table does not declare. An
/// `OrderOwner` route admits every caller here; its owner check is the store's. A
/// `ProviderSignature` route needs no caller: its handler checks the signature first.
pub fn authorize(req: &Request) -> Result<(), AppError> {
    let key = req.extensions().get::<RouteKey>().map(|k| k.0.as_str());
    let declared = key.and_then(find);
    if declared.is_some_and(|route| route.admits.needs_no_token()) {
        return Ok(());
    }
    let caller = crate::http::request::caller(req)?;
    let Some(route) = declared else {
        tracing::error!(route = ?key, "a request on a route that declares no callers");
        return Err(AppError::Forbidden(
            "this route admits no caller".to_owned(),
        ));
    };
    route.admits.check(caller, req, route.key)
}

impl Admits {
    /// Whether the route has no JWT authorizer: anyone may call it (the storefront), or the
    /// caller's signature over the body is checked by its handler (the provider).
    pub fn needs_no_token(self) -> bool {
        matches!(self, Admits::Anyone | Admits::ProviderSignature)
    }

    fn check(self, caller: &Caller, req: &Request, key: &str) -> Result<(), AppError> {
        match self {
            Admits::AnyCaller | Admits::Anyone | Admits::OrderOwner | Admits::ProviderSignature => {
                Ok(())
            }
            Admits::Staff => caller.check_staff(&format!("call {key}")),
            Admits::PathCustomer => {
                let customer = req
                    .path_parameters_ref()
                    .and_then(|params| params.first("customerId"))
                    .ok_or_else(|| AppError::invalid("customerId is required in the path"))?;
                caller.check_customer(&CustomerId::parse(customer)?)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/authorization.md's table: each kind of caller's row names exactly its routes.
    #[test]
    fn the_docs_table_of_who_may_call_what_is_this_table() {
        let doc = include_str!("../../../docs/authorization.md");
        let rows: Vec<&str> = doc
            .lines()
            .skip_while(|line| !line.starts_with("| admits | routes |"))
            .skip(2)
            .take_while(|line| line.starts_with('|'))
            .collect();
        assert_eq!(rows.len(), Admits::ALL.len(), "one row per kind of caller");
        for admits in Admits::ALL {
            let name = format!("`{admits:?}`");
            let row = rows
                .iter()
                .find(|row| row.trim_start_matches("| ").starts_with(&name))
                .unwrap_or_else(|| panic!("no row for {name}"));
            let cells: Vec<&str> = row.split('|').collect();
            let mut documented: Vec<&str> = cells[2].split('`').skip(1).step_by(2).collect();
            let mut routes: Vec<&str> = ROUTES
                .iter()
                .filter(|r| r.admits == admits)
                .map(|r| r.key)
                .collect();
            documented.sort_unstable();
            routes.sort_unstable();
            assert_eq!(documented, routes, "{name}");
        }
    }

    /// A request with claims on a route the table does not name is refused, and one without
    /// claims is a 401 wherever it came in (sam local start-api runs no authorizer).
    #[test]
    fn an_undeclared_route_admits_nobody_and_no_caller_is_a_401_first() {
        let event = |route: &str, claims: bool| {
            let authorizer = if claims {
                r#", "authorizer": {"jwt": {"claims": {"sub": "c1"}}}"#
            } else {
                ""
            };
            format!(
                r#"{{"routeKey": "{route}", "rawPath": "/x", "requestContext": {{"http": {{"method": "GET"}}{authorizer}}}}}"#
            )
        };
        let staff_clients = crate::http::gateway::StaffClients::default();
        let read = |text: String| {
            crate::http::gateway::request_from_json(&text, &staff_clients).expect("reads")
        };
        let refused = authorize(&read(event("GET /secret", true))).expect_err("refused");
        assert!(matches!(refused, AppError::Forbidden(_)), "{refused:?}");
        let refused = authorize(&read(event("$default", false))).expect_err("refused");
        assert!(matches!(refused, AppError::Unauthorized(_)), "{refused:?}");
        assert!(authorize(&read(event("GET /products", true))).is_ok());
    }

    #[test]
    fn each_route_is_declared_once() {
        let mut keys: Vec<&str> = ROUTES.iter().map(|r| r.key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), ROUTES.len());
        assert!(find("GET /customers/{customerId}").is_some());
        assert!(find("DELETE /customers/{customerId}").is_none());
    }

    #[test]
    fn path_customer_routes_name_a_customer_and_order_owner_routes_an_order() {
        for route in ROUTES {
            match route.admits {
                Admits::PathCustomer => assert!(route.key.contains("{customerId}"), "{route:?}"),
                Admits::OrderOwner => assert!(route.key.contains("{orderId}"), "{route:?}"),
                // A signed route has no caller: it names no customer to admit.
                Admits::ProviderSignature => assert!(!route.key.contains("{customerId}")),
                // The storefront reads the catalog only, under its own prefix, with GET.
                Admits::Anyone => assert!(
                    route.key.starts_with("GET /storefront/")
                        && !route.key.contains("{customerId}")
                        && !route.key.contains("{orderId}"),
                    "{route:?}"
                ),
                Admits::AnyCaller | Admits::Staff => {}
            }
        }
    }

    #[test]
    fn only_the_webhook_and_the_storefront_need_no_caller() {
        let storefront = ROUTES.iter().filter(|r| r.admits == Admits::Anyone);
        for route in storefront {
            // Each is a signed-in route's twin, served by the same function.
            let twin = route.key.replacen("/storefront", "", 1);
            let signed_in = find(&twin).unwrap_or_else(|| panic!("{twin}"));
            assert_eq!(
                (signed_in.binary, signed_in.admits),
                (route.binary, Admits::AnyCaller)
            );
        }
        let signed: Vec<&str> = ROUTES
            .iter()
            .filter(|r| r.admits == Admits::ProviderSignature)
            .map(|r| r.key)
            .collect();
        assert_eq!(signed, ["POST /payments/webhook"]);
        let staff_clients = crate::http::gateway::StaffClients::default();
        let claimless = serde_json::json!({
            "version": "2.0", "routeKey": "POST /payments/webhook", "rawPath": "/payments/webhook",
            "requestContext": {"http": {"method": "POST", "path": "/payments/webhook"}},
        })
        .to_string();
        let req =
            crate::http::gateway::request_from_json(&claimless, &staff_clients).expect("reads");
        assert!(authorize(&req).is_ok());
    }
}
