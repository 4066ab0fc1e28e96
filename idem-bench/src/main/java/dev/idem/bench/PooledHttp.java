package dev.idem.bench;

import java.io.IOException;
import java.util.Map;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;

/**
 * The benchmarks' load client, as a user's application would run one: Apache HttpClient 5 classic with a pool of
 * kept-alive HTTP/1.1 connections ({@code connections} per route and in all), no automatic retry (a failed request
 * fails the run), no cookies and no content compression (neither side uses them), 10 s to connect and 120 s to read.
 */
final class PooledHttp implements AutoCloseable {
    final CloseableHttpClient client;

    PooledHttp(int connections) {
        client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(connections)
                        .setMaxConnPerRoute(connections)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.ofSeconds(10))
                                .setSocketTimeout(Timeout.ofSeconds(120))
                                .build())
                        .build())
                .disableAutomaticRetries()
                .disableCookieManagement()
                .disableContentCompression()
                .build();
    }

    /** POSTs {@code json} with {@code headers}; a non-2xx is an exception. */
    void post(String url, String json, Map<String, String> headers) throws IOException {
        HttpPost post = new HttpPost(url);
        headers.forEach(post::addHeader);
        post.setEntity(new StringEntity(json, ContentType.APPLICATION_JSON));
        int code = client.execute(post, r -> {
            EntityUtils.consume(r.getEntity());
            return r.getCode();
        });
        if (code / 100 != 2) throw new IOException(url + " answered " + code);
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
