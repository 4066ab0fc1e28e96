package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Utf8Test {
    @Test
    void wellFormedUtf8IsDecodedAsIs() {
        String text = "héllo → 世界 🎉";
        assertThat(Utf8.decodeOrNull(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(text);
        assertThat(Utf8.decodeOrNull(new byte[0])).isEmpty();
    }

    @Test
    void malformedTruncatedOverlongAndSurrogateSequencesAreNotText() {
        assertThat(Utf8.decodeOrNull(new byte[] {(byte) 0xC3, 0x28})).isNull(); // bad continuation byte
        assertThat(Utf8.decodeOrNull(new byte[] {'a', (byte) 0xE2, (byte) 0x82}))
                .isNull(); // truncated at the end
        assertThat(Utf8.decodeOrNull(new byte[] {(byte) 0xC0, (byte) 0xAF})).isNull(); // overlong '/'
        assertThat(Utf8.decodeOrNull(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}))
                .isNull(); // U+D800
        assertThat(Utf8.decodeOrNull("café".getBytes(StandardCharsets.ISO_8859_1)))
                .isNull(); // Latin-1
    }
}
