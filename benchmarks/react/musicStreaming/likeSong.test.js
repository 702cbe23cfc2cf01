import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './likeSong';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('likes the song and shows the updated like count', async () => {
  fetchMock.post('/api/songs/s1/like', { status: 200, body: { likes: 11 } });

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('like-button')); });

  expect(fetchMock.calls('/api/songs/s1/like').length).toBe(1);
  expect(screen.getByText('11 likes')).toBeInTheDocument();
  expect(screen.getByTestId('like-button')).toHaveTextContent('Liked');
}, 10000);

test('shows an error when the like is not recorded', async () => {
  fetchMock.post('/api/songs/s1/like', 500);

  await act(async () => { render(<App />); });
  await act(async () => { fireEvent.click(screen.getByTestId('like-button')); });

  expect(fetchMock.calls('/api/songs/s1/like').length).toBe(1);
  expect(screen.getByText(/could not like song/i)).toBeInTheDocument();
  expect(screen.getByTestId('like-button')).not.toHaveTextContent('Liked');
}, 10000);
