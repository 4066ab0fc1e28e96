/**
 * The wire contract both ends share: headers, the envelope, Standard Webhooks signing and verification, key
 * derivation. JDK only; one package, all of it API.
 */
module dev.idem.wire {
    exports dev.idem.wire;
}
