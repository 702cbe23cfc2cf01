import { useState } from 'react';

export default function LikeSong() {
  const [liked, setLiked] = useState(false);
  const [likes, setLikes] = useState(null);
  const [error, setError] = useState('');

  const like = async () => {
    setError('');
    try {
      const response = await fetch('/api/songs/s1/like', { method: 'POST' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      setLikes(data.likes);
      setLiked(true);
    } catch (err) {
      setError('Could not like song');
    }
  };

  return (
    <div>
      <button data-testid="like-button" onClick={like} disabled={liked}>
        {liked ? 'Liked' : 'Like'}
      </button>
      {likes !== null && <span>{`${likes} likes`}</span>}
      {error && <p>{error}</p>}
    </div>
  );
}
