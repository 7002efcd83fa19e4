//! What some functions have in template.yaml beyond what is derived (their resource's name,
//! binary, description, routes, policies and alarm): YAML fragments, each one or more of the
//! function's properties as template.yaml writes them, in one place however many functions
//! share it. `make template` writes them into the function's resource.

/// The payment provider's base URL and key (read from Secrets Manager once at init).
pub(super) const PROVIDER_KEY: &str = r#"Environment:
  Variables:
    PAYMENT_API_BASE: !Ref PaymentApiBase
    PAYMENT_API_KEY_SECRET_ID: !Ref PaymentApiKeySecret
    # sam local invoke only (local/sam-env.json sets it); empty in a deployed stack.
    PAYMENT_API_KEY: """#;

/// checkout's time: DynamoDB's calls give up within 4 s, the provider's within ~6.3 s.
pub(super) const CHECKOUT_TIMEOUT: &str =
    "# DynamoDB's calls give up within 4 s, the provider's within ~6.3 s (3 attempts of 2 s).
Timeout: 15";

/// The webhook's endpoint secret (read from Secrets Manager once at init).
pub(super) const WEBHOOK_SECRET: &str = r#"Environment:
  Variables:
    PAYMENT_WEBHOOK_SECRET_ID: !Ref PaymentWebhookSecret
    # sam local invoke only (local/sam-env.json sets it); empty in a deployed stack.
    PAYMENT_WEBHOOK_SECRET: """#;

/// expire-holds' schedule.
pub(super) const END_HOLDS_SCHEDULE: &str = "Events:
  EveryMinute:
    Type: Schedule
    Properties:
      Schedule: rate(1 minute)
      Description: End the holds whose time is up";

/// pay-refunds' schedule.
pub(super) const PAY_REFUNDS_SCHEDULE: &str = "Events:
  EveryMinute:
    Type: Schedule
    Properties:
      Schedule: rate(1 minute)
      Description: Pay the refunds due";

/// A run every minute: it stops reading before its deadline
/// ([`crate::bootstrap::SCHEDULED_MARGIN`]), and a failed run is not retried (the next one
/// starts from the table).
pub(super) const EVERY_MINUTE: &str = r#"# A run stops reading before its deadline (shared::bootstrap::SCHEDULED_MARGIN).
Timeout: 55
EventInvokeConfig:
  MaximumRetryAttempts: 0"#;

/// How both stream consumers take the table's stream: from its oldest record, 100 at a time, a
/// batch's failures reported by position, bisected and retried, then given up to the consumer's
/// failure queue (`DestinationConfig`, beside this in each consumer's event).
macro_rules! stream_batches {
    () => {
        "      StartingPosition: TRIM_HORIZON
      BatchSize: 100
      FunctionResponseTypes:
        - ReportBatchItemFailures
      BisectBatchOnFunctionError: true
      MaximumRetryAttempts: 10
      # The stream keeps records 24 h; older ones could not be read anyway.
      MaximumRecordAgeInSeconds: 86400"
    };
}

/// order-stats' trigger: the order listings' changes.
pub(super) const ORDER_LISTINGS_STREAM: &str = concat!(
    r#"Events:
  Stream:
    Type: DynamoDB
    Properties:
      Stream: !GetAtt AppTable.StreamArn
      MaximumBatchingWindowInSeconds: 1
      DestinationConfig:
        OnFailure:
          Type: SQS
          Destination: !GetAtt OrderStatsFailureQueue.Arn
      # Order listings only (SK ORDER#…): never the profile or the shares this function
      # writes, headers, line items or idempotency records, so it cannot trigger itself.
      # Removals too: a deleted order leaves the statistics.
      FilterCriteria:
        Filters:
          - Pattern: '{"eventName": ["INSERT", "MODIFY", "REMOVE"], "dynamodb": {"Keys": {"SK": {"S": [{"prefix": "ORDER#"}]}}}}'
"#,
    stream_batches!()
);

/// publish-events' trigger: the changes the store publishes.
pub(super) const EVENTFUL_STREAM: &str = concat!(
    r#"Events:
  Stream:
    Type: DynamoDB
    Properties:
      Stream: !GetAtt AppTable.StreamArn
      DestinationConfig:
        OnFailure:
          Type: SQS
          Destination: !GetAtt PublishEventsFailureQueue.Arn
      # Order headers, refunds, products and variants only (shared::dynamo::events::EVENTFUL):
      # never the listings, lines or anything this function could trigger itself with.
      FilterCriteria:
        Filters:
          - Pattern: '{"eventName": ["INSERT", "MODIFY"], "dynamodb": {"Keys": {"SK": {"S": ["HEADER", "PRODUCT", "DETAILS", "REFUND", {"prefix": "REFUND#"}, {"prefix": "FULFILMENT#"}, {"prefix": "CANCELLATION#"}, {"prefix": "RETURN#"}]}}}}'
"#,
    stream_batches!()
);

/// publish-events' bus, low-stock threshold and failure queue.
pub(super) const PUBLISHER: &str = r#"# A batch resends what the bus did not take while it has time (SCHEDULED_MARGIN short of this).
Timeout: 60
Environment:
  Variables:
    EVENT_BUS_NAME: !Ref StoreEventBus
    LOW_STOCK_THRESHOLD: !Ref LowStockThreshold
    FAILURE_QUEUE_URL: !Ref PublishEventsFailureQueue
    AWS_ENDPOINT_URL_EVENTBRIDGE: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]
    AWS_ENDPOINT_URL_SQS: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]"#;

/// email-customers' sender, and its trigger: the email queue on the store's bus.
pub(super) const MAILER: &str = r#"Timeout: 15
Environment:
  Variables:
    EMAIL_SENDER: !Ref EmailSender
    AWS_ENDPOINT_URL_SESV2: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]
Events:
  Queue:
    Type: SQS
    Properties:
      Queue: !GetAtt CustomerEmailQueue.Arn
      BatchSize: 10
      FunctionResponseTypes:
        - ReportBatchItemFailures"#;

/// The media bucket's name, and its endpoint under `make dev` and `sam local invoke` (moto's S3,
/// beside the bus).
pub(super) const MEDIA_BUCKET: &str = r#"Environment:
  Variables:
    MEDIA_BUCKET: !Ref MediaBucket
    AWS_ENDPOINT_URL_S3: !If [UseLocalEvents, !Ref LocalEventsEndpoint, !Ref AWS::NoValue]"#;

/// check-media's trigger: the queue the media bucket's "Object Created" events reach through
/// their rule on the default bus.
pub(super) const MEDIA_ARRIVALS: &str = r#"Timeout: 30
Events:
  Queue:
    Type: SQS
    Properties:
      Queue: !GetAtt MediaArrivalQueue.Arn
      BatchSize: 10
      FunctionResponseTypes:
        - ReportBatchItemFailures"#;
