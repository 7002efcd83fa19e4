//! Where each AWS service the functions call answers, from the region Lambda gives: the SDKs'
//! own default resolvers parse a JSON table of every AWS partition and compile its region
//! patterns when the client is built, on every cold start (~550 k of an init's ~1,460 k
//! instructions for the DynamoDB client alone, by callgrind; the publisher builds three such
//! clients). A function only needs its region's regional endpoint, which is
//! `https://<service>.<region>.<the partition's DNS suffix>`, or the endpoint it is given.
//!
//! What the SDKs would resolve is the reference: a test per service compares this resolver
//! with the SDK's `DefaultResolver` over every region of the SDK's partition table, their
//! partitions' global pseudo-regions, regions not yet in the table, and DynamoDB Local's
//! `local`. FIPS and dual-stack endpoints, which no function uses, are refused rather than
//! resolved wrong.

use aws_smithy_types::endpoint::{Endpoint, EndpointAuthScheme};

/// The DNS suffix of the partition `region` belongs to, as the SDKs' partition table has it: an
/// exact pseudo-region first, then each partition's region pattern, else the `aws` partition
/// (the SDKs' own fallback, which is also where a new commercial region lands).
pub fn dns_suffix(region: &str) -> &'static str {
    const GLOBAL: [(&str, &str); 6] = [
        ("aws-cn-global", "amazonaws.com.cn"),
        ("aws-us-gov-global", "amazonaws.com"),
        ("aws-iso-global", "c2s.ic.gov"),
        ("aws-iso-b-global", "sc2s.sgov.gov"),
        ("aws-iso-e-global", "cloud.adc-e.uk"),
        ("aws-iso-f-global", "csp.hci.ic.gov"),
    ];
    if let Some((_, suffix)) = GLOBAL.iter().find(|(name, _)| *name == region) {
        return suffix;
    }
    let labels: Vec<&str> = region.split('-').collect();
    // Every partition's pattern ends in `-\w+-\d+`: a word, then a number.
    let shaped = labels.len() >= 3
        && labels[labels.len() - 2]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !labels[labels.len() - 2].is_empty()
        && labels[labels.len() - 1].chars().all(|c| c.is_ascii_digit())
        && !labels[labels.len() - 1].is_empty();
    if !shaped {
        return "amazonaws.com";
    }
    match &labels[..labels.len() - 2] {
        ["cn"] => "amazonaws.com.cn",
        ["eusc", "de"] => "amazonaws.eu",
        ["us", "iso"] => "c2s.ic.gov",
        ["us", "isob"] => "sc2s.sgov.gov",
        ["eu", "isoe"] => "cloud.adc-e.uk",
        ["us", "isof"] => "csp.hci.ic.gov",
        _ => "amazonaws.com",
    }
}

/// Where `service` answers for these parameters (an SDK's endpoint `Params`): the endpoint
/// given, else the region's regional endpoint. DynamoDB Local's region `local` is
/// `http://localhost:8000`, signed for us-east-1, as the DynamoDB SDK resolves it.
pub fn resolve(
    service: &'static str,
    region: Option<&str>,
    endpoint: Option<&str>,
    use_fips: Option<bool>,
    use_dual_stack: Option<bool>,
) -> Result<Endpoint, String> {
    if use_fips == Some(true) || use_dual_stack == Some(true) {
        return Err(format!(
            "{service}: FIPS and dual-stack endpoints are not resolved here; set the endpoint"
        ));
    }
    if let Some(endpoint) = endpoint {
        return Ok(Endpoint::builder().url(endpoint.to_owned()).build());
    }
    match region {
        Some("local") if service == "dynamodb" => Ok(Endpoint::builder()
            .url("http://localhost:8000")
            .auth_scheme(
                EndpointAuthScheme::with_capacity("sigv4", 2)
                    .put("signingName", service)
                    .put("signingRegion", "us-east-1"),
            )
            .build()),
        Some(region) => Ok(Endpoint::builder()
            .url(format!("https://{service}.{region}.{}", dns_suffix(region)))
            .build()),
        None => Err(format!(
            "{service}: a region is required to resolve its endpoint"
        )),
    }
}

/// An endpoint resolver for `$sdk` (one of the AWS SDK crates) that answers with [`resolve`] for the
/// service `$service`: a type of the calling crate, since each SDK has its own resolver trait.
#[macro_export]
macro_rules! regional_endpoint {
    ($sdk:ident, $service:literal) => {{
        #[derive(Debug)]
        struct Regional;
        impl $sdk::config::endpoint::ResolveEndpoint for Regional {
            fn resolve_endpoint<'a>(
                &'a self,
                params: &'a $sdk::config::endpoint::Params,
            ) -> $sdk::config::endpoint::EndpointFuture<'a> {
                $sdk::config::endpoint::EndpointFuture::ready(
                    $crate::dynamo::endpoint::resolve(
                        $service,
                        params.region(),
                        params.endpoint(),
                        params.use_fips(),
                        params.use_dual_stack(),
                    )
                    .map_err(Into::into),
                )
            }
        }
        Regional
    }};
}

/// The regions the tests resolve both ways: every region of the SDKs' partition table, each
/// partition's global pseudo-region, regions the table does not list yet, DynamoDB Local's.
#[doc(hidden)]
pub const CHECKED_REGIONS: &[&str] = &[
    "af-south-1",
    "ap-east-1",
    "ap-east-2",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-6",
    "ap-southeast-7",
    "aws-global",
    "ca-central-1",
    "ca-west-1",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "il-central-1",
    "me-central-1",
    "me-south-1",
    "mx-central-1",
    "sa-east-1",
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "aws-cn-global",
    "cn-north-1",
    "cn-northwest-1",
    "eusc-de-east-1",
    "aws-iso-global",
    "us-iso-east-1",
    "us-iso-west-1",
    "aws-iso-b-global",
    "us-isob-east-1",
    "us-isob-west-1",
    "aws-iso-e-global",
    "eu-isoe-west-1",
    "aws-iso-f-global",
    "us-isof-east-1",
    "us-isof-south-1",
    "aws-us-gov-global",
    "us-gov-east-1",
    "us-gov-west-1",
    "ap-southeast-9",
    "eu-west-12",
    "cn-south-7",
    "us-gov-north-3",
    "us-iso-central-4",
    "eusc-de-west-2",
    "xx-unknown-1",
    "local",
];

/// Asserts that `$resolver` (a [`regional_endpoint!`]) resolves every one of
/// [`CHECKED_REGIONS`], and a given endpoint, as `$sdk`'s `DefaultResolver` does.
#[doc(hidden)]
#[macro_export]
macro_rules! assert_resolves_as_the_sdk {
    ($sdk:ident, $resolver:expr) => {{
        use $sdk::config::endpoint::ResolveEndpoint as _;
        let ours = $resolver;
        let sdk = $sdk::config::endpoint::DefaultResolver::new();
        let given = [None, Some("https://127.0.0.1:4566")];
        for region in $crate::dynamo::endpoint::CHECKED_REGIONS {
            for endpoint in given {
                let mut params = $sdk::config::endpoint::Params::builder()
                    .region(*region)
                    .use_fips(false)
                    .use_dual_stack(false);
                if let Some(endpoint) = endpoint {
                    params = params.endpoint(endpoint);
                }
                let params = params.build().expect("parameters with a region");
                let expected =
                    $crate::__futures_util::FutureExt::now_or_never(sdk.resolve_endpoint(&params));
                let resolved =
                    $crate::__futures_util::FutureExt::now_or_never(ours.resolve_endpoint(&params));
                match (expected, resolved) {
                    (Some(Ok(expected)), Some(Ok(resolved))) => assert_eq!(
                        resolved, expected,
                        "{region}, endpoint {endpoint:?}: resolved unlike the SDK"
                    ),
                    (Some(Err(_)), Some(Err(_))) => {}
                    (expected, resolved) => panic!(
                        "{region}, endpoint {endpoint:?}: the SDK {expected:?}, this resolver {resolved:?}"
                    ),
                }
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamodb_resolves_as_its_sdk_does_in_every_partition() {
        crate::assert_resolves_as_the_sdk!(
            aws_sdk_dynamodb,
            crate::regional_endpoint!(aws_sdk_dynamodb, "dynamodb")
        );
    }

    #[test]
    fn fips_and_dual_stack_are_refused_not_resolved_wrong() {
        assert!(resolve("dynamodb", Some("us-east-1"), None, Some(true), None).is_err());
        assert!(resolve("dynamodb", Some("us-east-1"), None, None, Some(true)).is_err());
        assert!(resolve("dynamodb", None, None, None, None).is_err());
        let sovereign = resolve("dynamodb", Some("eusc-de-east-1"), None, None, None);
        assert_eq!(
            sovereign.map(|e| e.url().to_owned()).as_deref(),
            Ok("https://dynamodb.eusc-de-east-1.amazonaws.eu")
        );
    }
}
