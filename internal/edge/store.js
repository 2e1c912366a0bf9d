// The local KV namespace of `kontext edge serve --store DIR`: workerd turns
// a KV binding's get(key) into GET /<url-encoded key>; the value is the file
// DIR/<key>, read through the disk service bound as DISK.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method !== "GET") return new Response("read-only store", { status: 405 });
    const key = decodeURIComponent(url.pathname.slice(1));
    if (key === "" || key.split("/").some((p) => p === "" || p === "." || p === "..")) {
      return new Response("bad key", { status: 400 });
    }
    const res = await env.DISK.fetch("http://disk/" + key.split("/").map(encodeURIComponent).join("/"));
    if (res.status === 404) return new Response(null, { status: 404 });
    return new Response(res.body, { status: res.status });
  },
};
