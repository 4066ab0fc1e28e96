package dev.idem.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8: the one decoder the store, the server and the command line use to tell text from bytes. A lenient
 * decode ({@code new String(bytes, UTF_8)}) would turn malformed input into U+FFFD and so store or show something other
 * than what was sent; this refuses it instead.
 */
public final class Utf8 {
    private Utf8() {}

    /**
     * The bytes as text when they are well-formed UTF-8 (no malformed, truncated or overlong sequence, no encoded
     * surrogate); else null.
     */
    public static String decodeOrNull(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
