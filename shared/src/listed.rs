//! Enumerations that cannot be listed incompletely: [`listed!`](crate::listed) defines an enum
//! and its `ALL` from one list of variants, so a variant added to the enum is in `ALL` (and in
//! whatever is derived from it: parsing, the docs' tables, the dashboard's test) by
//! construction.

/// Defines a field-less enum and `ALL`, every variant in the order declared.
///
/// ```
/// shared::listed! {
///     /// A colour.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Colour {
///         /// Red.
///         Red,
///         /// Green.
///         Green,
///     }
/// }
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::Green]);
/// ```
///
/// With a name on the wire for each variant (`Variant = "NAME"`) and what the value is called
/// (`as "status"`), the enum also gets `as_str`, `Display`, and `FromStr` whose error (an
/// [`AppError::Invalid`](crate::AppError)) lists every name:
///
/// ```
/// shared::listed! {
///     /// A colour.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Colour as "colour" {
///         /// Red.
///         Red = "RED",
///         /// Green.
///         Green = "GREEN",
///     }
/// }
/// assert_eq!(Colour::Green.as_str(), "GREEN");
/// assert_eq!("RED".parse::<Colour>().expect("a colour"), Colour::Red);
/// let refused = "red".parse::<Colour>().expect_err("not a colour");
/// assert_eq!(refused.to_string(), "colour must be one of RED, GREEN, not \"red\"");
/// ```
#[macro_export]
macro_rules! listed {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $what:literal {
            $($(#[$variant_meta:meta])* $variant:ident = $wire:literal),+ $(,)?
        }
    ) => {
        $crate::listed! {
            $(#[$meta])*
            $vis enum $name {
                $($(#[$variant_meta])* $variant),+
            }
        }

        impl $name {
            /// As stored and sent.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire),+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::AppError;

            fn from_str(s: &str) -> Result<Self, $crate::AppError> {
                $name::ALL
                    .into_iter()
                    .find(|value| value.as_str() == s)
                    .ok_or_else(|| {
                        $crate::AppError::invalid(format!(
                            concat!($what, " must be one of ", $crate::listed!(@names $($wire),+), ", not {:?}"),
                            s
                        ))
                    })
            }
        }
    };
    (@names $first:literal $(, $rest:literal)*) => {
        concat!($first $(, ", ", $rest)*)
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $name {
            /// Every variant, in the order the enum declares them (derived: none can be left
            /// out).
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];
        }
    };
}
