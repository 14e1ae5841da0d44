use crate::text::{count_tokens, warm_up_tokenizer};

#[test]
fn counts_o200k_tokens() {
    assert_eq!(count_tokens(""), 0);
    assert_eq!(count_tokens("hello world"), 2);
    // A repeated word costs about one token a time.
    let long = "token ".repeat(100);
    assert!(
        (95..=105).contains(&count_tokens(&long)),
        "{}",
        count_tokens(&long)
    );
}

#[test]
fn special_token_markers_are_ordinary_text() {
    // With special tokens allowed this would be the single token 199999.
    assert!(count_tokens("<|endoftext|>") > 1);
}

#[test]
fn the_encoder_is_shared_across_threads() {
    warm_up_tokenizer();
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| scope.spawn(move || count_tokens(&format!("thread {i} counts its tokens"))))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().expect("thread"))
            .collect()
    });
    assert!(
        counts.iter().all(|&count| count == counts[0] && count > 0),
        "{counts:?}"
    );
}
