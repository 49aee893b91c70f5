internal import CCurl

// libcurl's callbacks. Each gets back the object it was registered with, which
// outlives the registration: a Transfer while its handle is in the multi
// handle, the HTTPClient until its deinit detaches them. None of them runs
// caller code, so no caller ever runs inside libcurl.

/// CURLOPT_WRITEFUNCTION: body bytes. Returning less than given stops the transfer.
let bodyThunk: curl_write_callback = { data, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
}

/// CURLOPT_HEADERFUNCTION: one header line at a time.
let headerThunk: curl_write_callback = { data, size, count, context in
    let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
}

/// CURLMOPT_SOCKETFUNCTION: which sockets to watch, and for what.
let socketThunk: curl_socket_callback = { _, fd, what, context, _ in
    Unmanaged<HTTPClient>.fromOpaque(context!).takeUnretainedValue().socketChanged(fd, what: what)
    return 0
}

/// CURLMOPT_TIMERFUNCTION: when to call back with CURL_SOCKET_TIMEOUT (-1: never).
let timerThunk: curl_multi_timer_callback = { _, milliseconds, context in
    Unmanaged<HTTPClient>.fromOpaque(context!).takeUnretainedValue().timerChanged(milliseconds)
    return 0
}
