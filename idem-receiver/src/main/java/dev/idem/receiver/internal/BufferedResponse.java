package dev.idem.receiver.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Holds the handler's response until the inbox has committed, so the sender never sees a 2xx for work that
 * was then rolled back. Not public API.
 */
public final class BufferedResponse extends HttpServletResponseWrapper {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private ServletOutputStream stream;
    private PrintWriter writer;

    public BufferedResponse(HttpServletResponse response) {
        super(response);
    }

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) throw new IllegalStateException("getWriter() was already called");
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public void write(int b) {
                    buffer.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    buffer.write(b, off, len);
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    throw new UnsupportedOperationException("webhook responses are buffered; write synchronously");
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (stream != null) throw new IllegalStateException("getOutputStream() was already called");
        if (writer == null) {
            String enc = getCharacterEncoding();
            Charset cs = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
            writer = new PrintWriter(new OutputStreamWriter(buffer, cs));
        }
        return writer;
    }

    @Override
    public void sendError(int sc) {
        setStatus(sc);
    }

    @Override
    public void sendError(int sc, String msg) {
        setStatus(sc);
        if (msg != null) buffer.writeBytes(msg.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void sendRedirect(String location) {
        setStatus(302);
        setHeader("Location", location);
    }

    @Override
    public void flushBuffer() {
        if (writer != null) writer.flush();
    }

    @Override
    public void setContentLength(int len) {
        // the real length is set when the buffer is written out
    }

    @Override
    public void setContentLengthLong(long len) {
        // as above
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    @Override
    public void reset() {
        super.reset();
        resetBuffer();
    }

    @Override
    public void resetBuffer() {
        if (writer != null) writer.flush();
        buffer.reset();
    }

    /** Whether the handler answered 2xx. */
    public boolean successful() {
        int s = getStatus();
        return s >= 200 && s < 300;
    }

    /** The body written so far. */
    public byte[] body() {
        if (writer != null) writer.flush();
        return buffer.toByteArray();
    }

    /** Writes the buffered body to the real response. */
    public void writeTo(HttpServletResponse response) throws IOException {
        byte[] b = body();
        response.setContentLength(b.length);
        response.getOutputStream().write(b);
        response.flushBuffer();
    }
}
