// The browser's one live stream, shared by every tab of the site (a SharedWorker).
// Browsers open at most six HTTP/1.1 connections per host; one EventSource per tab would
// use them up with a few tabs open. Tabs tell this worker what they show ("topics": match
// ids, and whether they want the user's badge); the worker keeps ONE EventSource on
// /sse/live for all of them together and hands each event to the tabs it concerns.
"use strict";

var tabs = new Map(); // port -> { matches: [ids], me: bool, user: "id" or "", seen: ms }
var source = null;
var sourceUrl = null;
var pending = null;
var TAB_SILENT_MS = 60000;

function wanted() {
  var matches = new Set();
  var me = false;
  var user = "";
  tabs.forEach(function (tab) {
    tab.matches.forEach(function (id) { matches.add(id); });
    me = me || tab.me;
    user = tab.user || user;
  });
  if (!matches.size && !me) {
    return null;
  }
  var query = Array.from(matches).sort(function (a, b) { return a - b; }).map(function (id) {
    return "m=" + encodeURIComponent(id);
  });
  if (me) {
    query.push("me=1");
  }
  // The user is part of the key: after a login as someone else the stream must start anew.
  return { url: "/sse/live?" + query.join("&"), key: user + " " + query.join("&") };
}

function send(tab, port, name, data) {
  if (name === "me" && !tab.me) {
    return;
  }
  if ((name === "area" || name === "chat" || name === "stale") && tab.matches.indexOf(String(data.match)) < 0) {
    return;
  }
  port.postMessage({ type: "event", name: name, data: data });
}

function broadcast(name, raw) {
  var data;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    return;
  }
  tabs.forEach(function (tab, port) { send(tab, port, name, data); });
}

function connect() {
  pending = null;
  var target = wanted();
  var key = target ? target.key : null;
  if (key === sourceUrl && source && source.readyState !== 2) {
    return;
  }
  if (source) {
    source.close();
    source = null;
  }
  sourceUrl = key;
  if (!target) {
    return;
  }
  source = new EventSource(target.url);
  ["hello", "area", "me", "chat", "stale"].forEach(function (name) {
    source.addEventListener(name, function (event) { broadcast(name, event.data); });
  });
  source.addEventListener("error", function () {
    tabs.forEach(function (tab, port) { port.postMessage({ type: "down" }); });
  });
}

function reconnectSoon() {
  // Tabs come in bursts (a session restored): one reconnect for all of them.
  if (pending === null) {
    pending = setTimeout(connect, 30);
  }
}

function prune() {
  var now = Date.now();
  var changed = false;
  tabs.forEach(function (tab, port) {
    if (now - tab.seen > TAB_SILENT_MS) {
      tabs.delete(port);
      changed = true;
    }
  });
  if (changed) {
    reconnectSoon();
  }
}

setInterval(prune, TAB_SILENT_MS / 3);

self.addEventListener("connect", function (event) {
  var port = event.ports[0];
  port.addEventListener("message", function (message) {
    var data = message.data || {};
    if (data.type === "topics") {
      tabs.set(port, {
        matches: (data.matches || []).map(String),
        me: !!data.me,
        user: String(data.user || ""),
        seen: Date.now()
      });
      reconnectSoon();
    } else if (data.type === "ping") {
      var tab = tabs.get(port);
      if (tab) {
        tab.seen = Date.now();
      }
    } else if (data.type === "bye") {
      tabs.delete(port);
      reconnectSoon();
    }
  });
  port.start();
});
